//! The raw-parse reference of the pipeline benchmark (`tests/bench/pipeline.sh`): how fast
//! `serde_json` parses the lines of a file into `serde_json::Value`, the floor any consumer of
//! the same bytes starts from. Prints one JSON line: lines, bytes, best-of-N seconds, lines/s.
//! Usage: `json-parse-rate FILE [ROUNDS]` (default 3 rounds; the file is read into memory
//! first, so this is parsing only, no I/O).

use std::time::Instant;

use serde_json::Value;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: json-parse-rate FILE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("json-parse-rate: cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    let mut best = f64::INFINITY;
    let mut lines = 0usize;
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        lines = 0;
        for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            match serde_json::from_slice::<Value>(line) {
                // Counting objects keeps the parse from being optimised away.
                Ok(v) => lines += usize::from(v.is_object()),
                Err(e) => {
                    eprintln!("json-parse-rate: line {} is not JSON: {e}", lines + 1);
                    std::process::exit(1);
                }
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "{{\"lines\":{lines},\"bytes\":{},\"seconds\":{best:.4},\"lines_per_s\":{:.0}}}",
        bytes.len(),
        lines as f64 / best
    );
}
