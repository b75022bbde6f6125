// The window's navigator, for components deep in a view (the "Open Settings" link next to an
// engine error). Outside the app (a component test without a provider) it is a navigator of
// its own that nothing shows.
import { createContext, useContext } from "react";
import { Navigator } from "./route";

export const NavigationContext = createContext<Navigator>(new Navigator());

export function useNavigator(): Navigator {
  return useContext(NavigationContext);
}
