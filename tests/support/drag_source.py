#!/usr/bin/env python3
"""A tiny GTK 3 window that offers one file as an OS drag (XDND, `text/uri-list`).

The chat E2E suite starts it on the test's X display and drives the drag with xdotool
(button down on this window, move onto the app, button up): a real drag-and-drop between two
X clients, the way a file manager hands a file to the app.

usage: drag_source.py FILE X Y   (the window's top-left corner on the screen)
Prints "ready" once the window is on screen and "dropped <action>" when a drag ends.
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def main() -> None:
    path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    uri = GLib.filename_to_uri(path, None)
    win = Gtk.Window(title="drag source")
    win.set_default_size(80, 80)
    win.set_decorated(False)
    win.move(x, y)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label="drag me"))
    win.add(box)
    targets = Gtk.TargetList.new([])
    targets.add_uri_targets(0)
    box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
    box.drag_source_set_target_list(targets)

    def on_get(_widget, _ctx, data, _info, _time):
        data.set_uris([uri])

    def on_end(_widget, ctx):
        print(f"dropped {ctx.get_selected_action()}", flush=True)

    def on_mapped(*_args):
        # One idle turn later the window is really on screen (positioned and painted).
        GLib.idle_add(lambda: print("ready", flush=True) and False)
        return False

    box.connect("drag-data-get", on_get)
    box.connect("drag-end", on_end)
    win.connect("map-event", on_mapped)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
