//! The app process's C heap (Linux with glibc only): how many malloc arenas glibc may keep, and
//! giving back the free memory it keeps after a run.
//!
//! Why: glibc gives each new thread an arena of its own until there are eight per core (the
//! runtime's workers, the database's threads, the blocking pool's), and memory freed in one
//! arena serves only the threads that use it; each arena keeps its own free memory. The app's
//! threads mostly wait on pipes and sockets, so two arenas cost no contention worth measuring
//! and keep less memory idle: in two 30-minute soaks of the same build one after the other
//! (BENCHMARKS.md, "Hours, not minutes", issue 26) the app's anonymous memory sat 2.0–3.4 MB
//! lower with two arenas than with glibc's default (sixteen on two cores) and rose 3.5 MB
//! instead of 4.9 from minute 5 to 30, for the same CPU. It still rises: this is not the
//! whole of the app's growth.
//!
//! What still rose is not live data: a heap profile of the whole soak (heaptrack) shows the
//! app's live heap between 12.2 and 13.1 MB from minute 5 to 30, while its anonymous memory
//! rose by 3 MB: memory freed by the runs, kept by glibc inside its heaps (a free page between
//! two used chunks is never returned by `free`). [`give_back`] after each run returns it: in
//! the next 30-minute soak the app rose 1.2 MB instead of 2.8, none of it in the last 15
//! minutes.
//!
//! The web and network processes are not touched: they are other programs (WebKit's), and
//! their heaps are mostly WebKit's own allocator's. Engine children never inherit a `mallopt`.

/// The arenas the app allows glibc (the main one and one other).
pub const ARENAS: i32 = 2;

/// What [`limit_arenas`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArenaLimit {
    /// glibc will create at most [`ARENAS`] arenas from now on.
    Set,
    /// The user chose a limit (`MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in
    /// `GLIBC_TUNABLES`), which glibc applied at start: theirs stands.
    UserChose,
    /// Not glibc (macOS, Windows, musl): their allocators have no such setting.
    NotGlibc,
    /// glibc refused the setting (`mallopt` returned 0).
    Refused,
}

/// Limits glibc to [`ARENAS`] malloc arenas. Call it first thing in the process, before any
/// thread starts: a thread that already has an arena keeps it.
pub fn limit_arenas() -> ArenaLimit {
    if user_chose(|name| std::env::var_os(name)) {
        return ArenaLimit::UserChose;
    }
    set_limit()
}

/// Whether the environment already sets glibc's arena limit.
fn user_chose(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    var("MALLOC_ARENA_MAX").is_some()
        || var("GLIBC_TUNABLES")
            .is_some_and(|t| t.to_string_lossy().contains("glibc.malloc.arena_max"))
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_limit() -> ArenaLimit {
    // SAFETY: mallopt only sets a field of glibc's malloc parameters (under its own lock);
    // M_ARENA_MAX takes any positive count.
    if unsafe { libc::mallopt(libc::M_ARENA_MAX, ARENAS) } == 1 {
        ArenaLimit::Set
    } else {
        ArenaLimit::Refused
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_limit() -> ArenaLimit {
    ArenaLimit::NotGlibc
}

/// Returns the whole free pages of every arena to the system (`malloc_trim(0)`): what a run
/// allocated and freed, which glibc would otherwise keep for the process's lifetime. `true`
/// when some memory went back. Costs a walk of the free lists (well under a millisecond for
/// the app's ~15 MB heap); the pages are faulted in again only when the heap needs them.
/// Elsewhere a no-op (`false`): macOS's and Windows' allocators return free pages themselves.
pub fn give_back() -> bool {
    trim()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() -> bool {
    // SAFETY: malloc_trim takes each arena's lock and only releases pages no chunk uses.
    unsafe { libc::malloc_trim(0) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn a_limit_the_user_set_stands() {
        assert!(!user_chose(env(&[])));
        assert!(!user_chose(env(&[(
            "GLIBC_TUNABLES",
            "glibc.malloc.tcache_count=0"
        )])));
        assert!(user_chose(env(&[("MALLOC_ARENA_MAX", "8")])));
        assert!(user_chose(env(&[(
            "GLIBC_TUNABLES",
            "glibc.malloc.check=0:glibc.malloc.arena_max=4"
        )])));
    }
}
