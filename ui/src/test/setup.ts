// Tests see store changes at once (the window waits for the next animation frame).
import { flushNow, storeOptions } from "../state/sessionStore";

storeOptions.scheduler = flushNow;
