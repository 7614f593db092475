//! Bounded waits, and what a GPU is after one runs out: stuck.
//!
//! The driver cannot stop a kernel that never finishes. While one runs, every call that waits
//! for its context blocks: `cuModuleUnload`, `cuMemFree`, `cuMemFreeHost`, releasing, resetting
//! or destroying the context (`cuDevicePrimaryCtxRelease`, `cuDevicePrimaryCtxReset`,
//! `cuCtxDestroy`), and a copy to or from pageable memory queued behind it. What does not block:
//! launching, recording and querying events, creating and destroying streams, allocating,
//! `cuMemFreeAsync`, retaining the primary context again, and exiting the process (the driver
//! then ends the kernel). So after a wait runs out, this crate marks the GPU stuck and refuses
//! further work on it with [`Error::Stuck`] instead of blocking; the process still exits at
//! once. If the stuck work ends after all (a kernel waiting on a word the host then writes), the
//! GPU is usable again from the next call on.
//!
//! Drops never wait either. A module, pinned or peer memory dropped while a GPU is busy is
//! freed later, by the first call that finds every stream of the GPUs it may be used on idle
//! ([`free_when_idle`]); while a GPU stays stuck it is never freed (the driver frees it at
//! exit).
//!
//! The state is per GPU ordinal and process-wide: every handle on one GPU shares its primary
//! context, so a kernel stuck through one handle blocks the cleanup of all of them.

use crate::{Error, Result};
use cudarc::driver::{CudaEvent, CudaStream};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// The limit [`Device`](crate::Device) gives the calls that wait for its stream without taking a
/// limit of their own (`download`, `upload`, `read_global`, `write_global`, and drops of modules
/// and pinned memory), until [`Device::set_watchdog`](crate::Device::set_watchdog) changes it.
pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(60);

/// How often a bounded wait asks the driver whether the work is done.
const POLL: Duration = Duration::from_micros(200);

/// Why a GPU is stuck, and the events that say when it no longer is.
struct Stuck {
    what: String,
    limit: Duration,
    since: Instant,
    /// Recorded behind the work that did not finish, one per stream it was on.
    pending: Vec<CudaEvent>,
}

/// A free that would wait for the GPU, kept until the GPUs it concerns are idle.
struct Deferred {
    /// The GPU whose streams must be idle; `None`: every GPU's (memory any GPU may use).
    gpu: Option<usize>,
    free: Box<dyn FnOnce() + Send>,
}

/// One GPU's entry: the streams of its handles, and whether it is stuck.
struct Gpu {
    ordinal: usize,
    streams: Vec<Weak<CudaStream>>,
    stuck: Option<Stuck>,
}

// Never dropped either: what is still here at exit is freed by the driver.
static DEFERRED: Mutex<Vec<Deferred>> = Mutex::new(Vec::new());

// Never dropped (statics are not): a stuck GPU's events and streams stay alive until exit.
static GPUS: Mutex<Vec<Gpu>> = Mutex::new(Vec::new());

fn gpus() -> MutexGuard<'static, Vec<Gpu>> {
    // A panic while holding the lock leaves the list consistent (every update is one push or
    // one assignment), so a poisoned lock is still good to use.
    GPUS.lock().unwrap_or_else(|p| p.into_inner())
}

fn entry(list: &mut Vec<Gpu>, ordinal: usize) -> &mut Gpu {
    let i = match list.iter().position(|g| g.ordinal == ordinal) {
        Some(i) => i,
        None => {
            list.push(Gpu {
                ordinal,
                streams: Vec::new(),
                stuck: None,
            });
            list.len() - 1
        }
    };
    &mut list[i]
}

/// Adds `stream` to the streams of GPU `ordinal` (what [`settle_all`] waits for).
pub(crate) fn register_stream(ordinal: usize, stream: &Arc<CudaStream>) {
    let mut list = gpus();
    let gpu = entry(&mut list, ordinal);
    gpu.streams.retain(|s| s.strong_count() > 0);
    if !gpu
        .streams
        .iter()
        .any(|s| s.as_ptr() == Arc::as_ptr(stream))
    {
        gpu.streams.push(Arc::downgrade(stream));
    }
}

/// `Ok` unless GPU `ordinal` is stuck: then [`Error::Stuck`], at once. Work that was stuck and
/// has since finished clears the state, and frees that were waiting for idle GPUs run.
pub(crate) fn check(ordinal: usize) -> Result<()> {
    let result = stuck_state(ordinal);
    if result.is_ok() {
        run_deferred();
    }
    result
}

fn stuck_state(ordinal: usize) -> Result<()> {
    let mut list = gpus();
    let gpu = entry(&mut list, ordinal);
    let Some(stuck) = &gpu.stuck else {
        return Ok(());
    };
    let done = stuck
        .pending
        .iter()
        .all(|e| matches!(e.try_is_complete(), Ok(true) | Err(_)));
    if done {
        gpu.stuck = None;
        return Ok(());
    }
    Err(Error::Stuck {
        gpu: ordinal,
        what: stuck.what.clone(),
        limit: stuck.limit,
        stuck_for: stuck.since.elapsed(),
    })
}

/// Whether GPU `ordinal` is stuck now.
fn is_stuck(ordinal: usize) -> bool {
    stuck_state(ordinal).is_err()
}

/// Whether every live stream of GPU `gpu` (of every GPU for `None`) has finished its work now,
/// and none is stuck. Asks once; never waits.
fn idle_now(gpu: Option<usize>) -> bool {
    let (ordinals, streams) = {
        let mut list = gpus();
        let mut ordinals = Vec::new();
        let mut streams = Vec::new();
        for g in list
            .iter_mut()
            .filter(|g| gpu.is_none_or(|o| o == g.ordinal))
        {
            g.streams.retain(|s| s.strong_count() > 0);
            ordinals.push(g.ordinal);
            streams.extend(g.streams.iter().filter_map(Weak::upgrade));
        }
        (ordinals, streams)
    };
    if ordinals.into_iter().any(is_stuck) {
        return false;
    }
    streams.iter().all(|stream| {
        stream
            .record_event(None)
            .is_ok_and(|e| matches!(e.try_is_complete(), Ok(true)))
    })
}

/// Runs `free` (a `cuModuleUnload`, `cuMemFree` or `cuMemFreeHost`, each of which waits for the
/// context in the driver) now if GPU `gpu` (every GPU for `None`) is idle, else keeps it for the
/// first later call that finds it idle: a drop never waits. Never run while a GPU stays stuck.
pub(crate) fn free_when_idle(gpu: Option<usize>, free: Box<dyn FnOnce() + Send>) {
    if idle_now(gpu) {
        free();
    } else {
        deferred().push(Deferred { gpu, free });
    }
}

fn deferred() -> MutexGuard<'static, Vec<Deferred>> {
    DEFERRED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs the deferred frees whose GPUs are idle now.
fn run_deferred() {
    let waiting = {
        let mut list = deferred();
        if list.is_empty() {
            return;
        }
        std::mem::take(&mut *list)
    };
    let (ready, keep): (Vec<Deferred>, Vec<Deferred>) =
        waiting.into_iter().partition(|d| idle_now(d.gpu));
    deferred().extend(keep);
    // Outside the locks: a free calls the driver.
    for d in ready {
        (d.free)();
    }
}

/// Marks GPU `ordinal` stuck on `pending`.
fn mark_stuck(ordinal: usize, what: &str, limit: Duration, pending: Vec<CudaEvent>) {
    let mut list = gpus();
    let gpu = entry(&mut list, ordinal);
    if gpu.stuck.is_none() {
        gpu.stuck = Some(Stuck {
            what: what.to_string(),
            limit,
            since: Instant::now(),
            pending,
        });
    }
}

/// Waits until the work queued so far on `streams` of GPU `ordinal` has finished, at most
/// `limit` (`Duration::MAX` is no limit; zero asks once). Past the limit the GPU is stuck and
/// the answer is [`Error::Timeout`]; a kernel that faulted is the driver's error. Never blocks
/// in the driver: it records an event on each stream and polls them.
pub(crate) fn settle(
    ordinal: usize,
    streams: &[Arc<CudaStream>],
    limit: Duration,
    what: &str,
) -> Result<()> {
    let mut pending = Vec::with_capacity(streams.len());
    for stream in streams {
        let event = stream.record_event(None).map_err(|source| Error::Driver {
            what: format!("recording an event to wait for {what}"),
            source,
        })?;
        pending.push(event);
    }
    let start = Instant::now();
    loop {
        let mut done = true;
        for event in &pending {
            match event.try_is_complete() {
                Ok(true) => {}
                Ok(false) => done = false,
                Err(source) => {
                    return Err(Error::Driver {
                        what: what.to_string(),
                        source,
                    })
                }
            }
        }
        if done {
            return Ok(());
        }
        if start.elapsed() >= limit {
            mark_stuck(ordinal, what, limit, pending);
            return Err(Error::Timeout {
                what: what.to_string(),
                limit,
                gpu: ordinal,
            });
        }
        std::thread::sleep(POLL);
    }
}

/// [`settle`] on every live stream of GPU `ordinal`'s handles: what must hold before a call
/// that waits for the whole context (unloading a module, freeing pinned or peer memory).
/// `Err` where the GPU is or becomes stuck.
pub(crate) fn settle_all(ordinal: usize, limit: Duration, what: &str) -> Result<()> {
    check(ordinal)?;
    let streams: Vec<Arc<CudaStream>> = {
        let mut list = gpus();
        let gpu = entry(&mut list, ordinal);
        gpu.streams.retain(|s| s.strong_count() > 0);
        gpu.streams.iter().filter_map(Weak::upgrade).collect()
    };
    settle(ordinal, &streams, limit, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_gpu_is_usable_and_not_stuck() {
        assert!(check(usize::MAX - 1).is_ok());
        assert!(!is_stuck(usize::MAX - 1));
        // No streams registered: nothing to wait for, even with a zero limit.
        assert!(settle_all(usize::MAX - 2, Duration::ZERO, "nothing").is_ok());
        assert!(idle_now(Some(usize::MAX - 2)));
    }

    #[test]
    fn a_free_on_an_idle_gpu_runs_at_once() {
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        static FREED: AtomicU32 = AtomicU32::new(0);
        for _ in 0..3 {
            free_when_idle(
                Some(usize::MAX - 3),
                Box::new(|| {
                    FREED.fetch_add(1, Relaxed);
                }),
            );
        }
        assert_eq!(FREED.load(Relaxed), 3);
    }
}
