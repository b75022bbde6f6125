//! The app process's C heap: how many malloc arenas glibc may keep (Linux with glibc only).
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
