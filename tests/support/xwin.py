#!/usr/bin/env python3
"""What a window manager does to a window, for E2E tests under Xvfb (which has none).

  xwin.py close WID   ask the window to close (WM_PROTOCOLS / WM_DELETE_WINDOW), as a
                      title bar's close button does: the app gets a close request it may refuse
  xwin.py unfocus     give the input focus to the root window (the user went to another app)

Only libX11 through ctypes: no python-xlib needed.
"""
import ctypes
import sys

CLIENT_MESSAGE = 33
REVERT_TO_NONE = 0
CURRENT_TIME = 0


class ClientMessage(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("l", ctypes.c_long * 5),
    ]


class Event(ctypes.Union):
    # XEvent is 24 longs whatever the kind.
    _fields_ = [("xclient", ClientMessage), ("pad", ctypes.c_long * 24)]


def main():
    x = ctypes.cdll.LoadLibrary("libX11.so.6")
    x.XOpenDisplay.restype = ctypes.c_void_p
    x.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x.XInternAtom.restype = ctypes.c_ulong
    x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(Event)]
    x.XDefaultRootWindow.restype = ctypes.c_ulong
    x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x.XSetInputFocus.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]
    x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    x.XCloseDisplay.argtypes = [ctypes.c_void_p]
    d = x.XOpenDisplay(None)
    if not d:
        sys.exit("cannot open the display")
    if sys.argv[1] == "close":
        window = int(sys.argv[2], 0)
        ev = Event()
        ev.xclient.type = CLIENT_MESSAGE
        ev.xclient.window = window
        ev.xclient.message_type = x.XInternAtom(d, b"WM_PROTOCOLS", 0)
        ev.xclient.format = 32
        ev.xclient.l[0] = x.XInternAtom(d, b"WM_DELETE_WINDOW", 0)
        ev.xclient.l[1] = CURRENT_TIME
        if not x.XSendEvent(d, window, 0, 0, ctypes.byref(ev)):
            sys.exit("XSendEvent failed")
    elif sys.argv[1] == "unfocus":
        x.XSetInputFocus(d, x.XDefaultRootWindow(d), REVERT_TO_NONE, CURRENT_TIME)
    else:
        sys.exit("usage: xwin.py close WID | unfocus")
    x.XSync(d, 0)
    x.XCloseDisplay(d)


if __name__ == "__main__":
    main()
