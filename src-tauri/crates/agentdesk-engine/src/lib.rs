//! Engine child processes. Engine-neutral plumbing (transport, RPC peer, supervisor,
//! discovery) plus one adapter per engine that turns engine-native messages into the
//! canonical events of the timeline.
