//! Real thread contention for the host-backend tests: `THREADS` std threads run one body.

use std::sync::Arc;
use std::thread;

/// Threads `on_threads` starts.
pub const THREADS: u32 = 4;

/// Runs `f(t)` on `THREADS` threads at once (`t` in `0..THREADS`) and joins them; a panic in
/// any of them fails the caller.
pub fn on_threads(f: impl Fn(u32) + Send + Sync + 'static) {
    let f = Arc::new(f);
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let f = f.clone();
            thread::spawn(move || f(t))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
