#!/usr/bin/env python3
"""Cold start of the app under Xvfb (issue 12, BENCHMARKS.md "Chat window (issue 12)").

Each round starts a private Xvfb + session bus + tauri-driver, opens one WebDriver session on
the app (a fresh data dir, or a copy of --data), and prints, from the app process's start time
(/proc/<pid>/stat):
  nav    the page's navigation start (performance.timeOrigin)
  fcp    its first contentful paint
  first  the first app command the page sent (app_info) as the app logged it
and, with --timeline, the app's own log lines (RUST_LOG=agentdesk=trace) on the same clock.
With --strace, the round runs under `strace -f -tt` (execve, clone, connect) and the
lines of interest are printed on the same clock too (strace slows the process down: use it
for the order of events, not for the figures).

Usage: tests/bench/startup.py [--app BIN] [--rounds N] [--data DIR] [--timeline] [--strace]
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, limit=20.0):
    end = time.time() + limit
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"port {port} never opened")


def boot_epoch():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("btime "):
                return float(line.split()[1])
    raise RuntimeError("no btime")


def uptime_epoch_offset():
    # /proc/<pid>/stat's start time is in clock ticks since boot; btime has only whole
    # seconds, so place boot on the wall clock with /proc/uptime instead.
    with open("/proc/uptime") as f:
        up = float(f.read().split()[0])
    return time.time() - up


def start_epoch(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return uptime_epoch_offset() + int(fields[19]) / CLK_TCK


def cpu_tree(root):
    """CPU seconds (user + system) of `root` and its children, by process name."""
    out = {}
    pids = [root]
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == root:
                    pids.append(int(pid))
            except OSError:
                pass
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                raw = f.read()
        except OSError:
            continue
        name = raw[raw.index("(") + 1:raw.rindex(")")]
        fields = raw.rsplit(")", 1)[1].split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / CLK_TCK
    return out


def find_app(app, data_dir):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if os.path.realpath(exe) == os.path.realpath(app) and (
            b"AGENTDESK_DATA_DIR=" + data_dir.encode()
        ) in env:
            return int(pid)
    return None


def wd(url, method="GET", body=None, timeout=120):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read() or b"null")


FCP = """
const nav = performance.timeOrigin;
const p = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
const marks = performance.getEntriesByType('mark').map((m) => [m.name, nav + m.startTime]);
const res = performance.getEntriesByType('resource').map((r) => [r.name.split('/').pop(), nav + r.startTime, nav + r.responseEnd]);
return { nav, fcp: p ? nav + p.startTime : null, marks, res };
"""


def log_epoch(line):
    # tracing's default format starts with an RFC 3339 UTC timestamp.
    stamp = line.split(" ", 1)[0]
    try:
        t = time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")
        frac = float("0." + stamp[20:].rstrip("Z").split("+")[0]) if len(stamp) > 20 else 0.0
        return time.mktime(t) - time.timezone + frac
    except ValueError:
        return None


def one_round(args, display, bus):
    home = tempfile.mkdtemp(prefix="agentdesk-startup-", dir=os.path.join(ROOT, "target"))
    data = os.path.join(home, "data")
    if args.data:
        shutil.copytree(args.data, data)
    else:
        os.makedirs(data)
    env = dict(os.environ)
    env.update(
        DISPLAY=display,
        DBUS_SESSION_BUS_ADDRESS=bus,
        NO_AT_BRIDGE="1",
        RUST_LOG=os.environ.get("BENCH_RUST_LOG", "info,agentdesk=trace,agentdesk_shell=trace") if args.timeline else "info",
        AGENTDESK_DATA_DIR=data,
        XDG_DATA_HOME=os.path.join(home, "xdg-data"),
        XDG_CONFIG_HOME=os.path.join(home, "xdg-config"),
        XDG_CACHE_HOME=os.path.join(home, "xdg-cache"),
    )
    port, native = free_port(), free_port()
    log = open(os.path.join(home, "driver.log"), "w")
    cmd = ["tauri-driver", "--port", str(port), "--native-port", str(native)]
    trace = os.path.join(home, "strace.log")
    if args.strace:
        cmd = ["strace", "-f", "-tt", "-s", "120", "-o", trace, "-e", "trace=execve,clone,clone3,connect"] + cmd
    driver = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_port(port)
        wait_port(native)
        base = f"http://127.0.0.1:{port}"
        caps = {"capabilities": {"alwaysMatch": {"browserName": "wry", "tauri:options": {"application": args.app}}}}
        sid = wd(f"{base}/session", "POST", caps)["value"]["sessionId"]
        # The first screen is there when the sidebar lists the workspaces (or says there are none).
        end = time.time() + 60
        while time.time() < end:
            r = wd(f"{base}/session/{sid}/execute/sync", "POST", {"script": "return document.querySelector('.sidebar') !== null && performance.getEntriesByType('paint').some((e) => e.name === 'first-contentful-paint')", "args": []})
            if r["value"]:
                break
            time.sleep(0.02)
        sidebar = time.time()
        page = wd(f"{base}/session/{sid}/execute/sync", "POST", {"script": FCP, "args": []})["value"]
        pid = find_app(args.app, data)
        cpu = cpu_tree(pid)
        started = start_epoch(pid)
        out = {
            "nav": page["nav"] / 1000 - started,
            "fcp": (page["fcp"] / 1000 - started) if page["fcp"] else None,
            "sidebar_wd": sidebar - started,
            "cpu": cpu,
        }
        # The app logs to <data>/logs/agentdesk.log.<date>.
        logs = os.path.join(data, "logs")
        lines = []
        for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
            with open(os.path.join(logs, name)) as f:
                lines += f.read().splitlines()
        for line in lines:
            if "app_info" in line and "first" not in out:
                t = log_epoch(line)
                if t:
                    out["first"] = t - started
        if args.timeline:
            print("  -- app log (s from process start)")
            for line in lines:
                t = log_epoch(line)
                print(f"  {t - started:7.3f} {line.split(' ', 1)[1][:150]}" if t else f"          {line[:150]}")
            print(f"  {out['nav']:7.3f} page: navigation start")
            for name, at in page["marks"]:
                print(f"  {at / 1000 - started:7.3f} page mark: {name}")
            for name, s, e in page["res"]:
                print(f"  {s / 1000 - started:7.3f} page resource {name} (until {e / 1000 - started:.3f})")
            if out["fcp"]:
                print(f"  {out['fcp']:7.3f} page: first contentful paint")
        wd(f"{base}/session/{sid}", "DELETE")
        if args.strace:
            print_strace(trace, started)
        return out
    finally:
        os.killpg(driver.pid, signal.SIGTERM)
        driver.wait(timeout=10)
        log.close()
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)
        else:
            print("  kept", home)


def print_strace(path, started):
    print("  -- strace (s from the app's start)")
    day = time.strftime("%Y-%m-%d", time.gmtime(started))
    for line in open(path):
        parts = line.split(None, 2)
        if len(parts) < 3:
            continue
        pid, clock, rest = parts
        if not any(k in rest for k in ("execve(", "connect(", "clone")):
            continue
        if "resumed>" in rest or "ENOENT" in rest:
            continue
        t = time.mktime(time.strptime(f"{day} {clock[:8]}", "%Y-%m-%d %H:%M:%S")) - time.timezone + float("0" + clock[8:])
        if t - started < -0.5:
            continue
        print(f"  {t - started:7.3f} [{pid}] {rest.strip()[:140]}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--app", default=os.path.join(ROOT, "target/release/agentdesk"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--data", help="a data dir to copy into each round (e.g. with a workspace)")
    p.add_argument("--timeline", action="store_true")
    p.add_argument("--strace", action="store_true")
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    args.app = os.path.realpath(args.app)
    with open("/proc/loadavg") as f:
        print("load:", " ".join(f.read().split()[:3]))
    n = 100 + os.getpid() % 800
    while os.path.exists(f"/tmp/.X{n}-lock"):
        n += 1
    xvfb = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dbus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bus = dbus.stdout.readline().strip()
    try:
        while not os.path.exists(f"/tmp/.X11-unix/X{n}"):
            time.sleep(0.05)
        results = []
        for i in range(args.rounds):
            r = one_round(args, f":{n}", bus)
            results.append(r)
            first = f"{r['first']:.3f}" if "first" in r else "-"
            fcp = f"{r['fcp']:.3f}" if r["fcp"] else "-"
            cpu = ", ".join(f"{k} {v:.2f}" for k, v in sorted(r["cpu"].items()))
            print(f"round {i + 1}: nav {r['nav']:.3f} s  first command {first} s  fcp {fcp} s  sidebar (WebDriver) {r['sidebar_wd']:.3f} s  CPU-s then: {cpu}", flush=True)
        with open("/proc/loadavg") as f:
            print("load after:", " ".join(f.read().split()[:3]))
    finally:
        xvfb.terminate()
        dbus.terminate()


if __name__ == "__main__":
    sys.exit(main())
