//! Which [`Ordering`]s each kind of operation accepts, with the same rules (and panics) as
//! `core::sync::atomic`, and the single PTX `.sem` that a compare-exchange's two orders need.

use core::sync::atomic::Ordering;

/// The PTX memory-ordering qualifier of one instruction, after seq_cst has been split into a
/// leading `fence.sc` plus this qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    /// `fence.sc.<scope>` then the `.acquire` (read/RMW) or `.relaxed` (write) form.
    SeqCst,
}

/// An order that core's atomics reject, with core's message. On the host a panic (at the
/// caller: `#[track_caller]`); on the GPU the crate's one trap path (`vprintf` of the message,
/// then `trap`), so it is printed whatever the kernel's panic handler does. Constant orders
/// (the usual case) fold away: the check costs nothing in the PTX.
macro_rules! invalid {
    ($msg:literal) => {
        $crate::backend::check::fail!($msg)
    };
}

/// Order accepted by a load: Relaxed, Acquire, SeqCst (as `AtomicU32::load`).
#[inline(always)]
#[track_caller]
pub(crate) fn load(order: Ordering) -> Sem {
    match order {
        Ordering::Relaxed => Sem::Relaxed,
        Ordering::Acquire => Sem::Acquire,
        Ordering::SeqCst => Sem::SeqCst,
        Ordering::Release => invalid!("there is no such thing as a release load"),
        Ordering::AcqRel => invalid!("there is no such thing as an acquire-release load"),
        _ => invalid!("unknown memory ordering"),
    }
}

/// Order accepted by a store or a no-return reduction: Relaxed, Release, SeqCst.
#[inline(always)]
#[track_caller]
pub(crate) fn store(order: Ordering) -> Sem {
    match order {
        Ordering::Relaxed => Sem::Relaxed,
        Ordering::Release => Sem::Release,
        Ordering::SeqCst => Sem::SeqCst,
        Ordering::Acquire => invalid!("there is no such thing as an acquire store"),
        Ordering::AcqRel => invalid!("there is no such thing as an acquire-release store"),
        _ => invalid!("unknown memory ordering"),
    }
}

/// Order of a read-modify-write: every order is accepted.
#[inline(always)]
pub(crate) fn rmw(order: Ordering) -> Sem {
    match order {
        Ordering::Relaxed => Sem::Relaxed,
        Ordering::Acquire => Sem::Acquire,
        Ordering::Release => Sem::Release,
        Ordering::AcqRel => Sem::AcqRel,
        _ => Sem::SeqCst,
    }
}

/// A PTX `atom.cas` has one `.sem`, so the success and failure orders are merged into the
/// weakest qualifier that is at least as strong as both (libcu++ does the same). The failure
/// order follows core's rules: it cannot be Release or AcqRel.
#[inline(always)]
#[track_caller]
pub(crate) fn compare_exchange(success: Ordering, failure: Ordering) -> Sem {
    let fail = match failure {
        Ordering::Relaxed => Sem::Relaxed,
        Ordering::Acquire => Sem::Acquire,
        Ordering::SeqCst => Sem::SeqCst,
        Ordering::Release => invalid!("there is no such thing as a release failure ordering"),
        Ordering::AcqRel => {
            invalid!("there is no such thing as an acquire-release failure ordering")
        }
        _ => invalid!("unknown memory ordering"),
    };
    match (rmw(success), fail) {
        (Sem::SeqCst, _) | (_, Sem::SeqCst) => Sem::SeqCst,
        (Sem::Relaxed, Sem::Acquire) => Sem::Acquire,
        (Sem::Release, Sem::Acquire) => Sem::AcqRel,
        (s, _) => s,
    }
}

/// Order of a fence: anything but Relaxed (as `core::sync::atomic::fence`).
#[inline(always)]
#[track_caller]
pub(crate) fn fence(order: Ordering) -> Sem {
    match order {
        Ordering::Relaxed => invalid!("there is no such thing as a relaxed fence"),
        Ordering::SeqCst => Sem::SeqCst,
        _ => Sem::AcqRel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::*;

    #[test]
    fn cas_orders_merge_to_the_weakest_sufficient_sem() {
        assert_eq!(compare_exchange(Relaxed, Relaxed), Sem::Relaxed);
        assert_eq!(compare_exchange(Relaxed, Acquire), Sem::Acquire);
        assert_eq!(compare_exchange(Acquire, Relaxed), Sem::Acquire);
        assert_eq!(compare_exchange(Release, Relaxed), Sem::Release);
        assert_eq!(compare_exchange(Release, Acquire), Sem::AcqRel);
        assert_eq!(compare_exchange(AcqRel, Relaxed), Sem::AcqRel);
        assert_eq!(compare_exchange(AcqRel, Acquire), Sem::AcqRel);
        assert_eq!(compare_exchange(Relaxed, SeqCst), Sem::SeqCst);
        assert_eq!(compare_exchange(SeqCst, Relaxed), Sem::SeqCst);
    }

    #[test]
    #[should_panic(expected = "release failure ordering")]
    fn cas_rejects_release_failure() {
        compare_exchange(AcqRel, Release);
    }

    #[test]
    #[should_panic(expected = "release load")]
    fn load_rejects_release() {
        load(Release);
    }

    #[test]
    #[should_panic(expected = "acquire store")]
    fn store_rejects_acquire() {
        store(Acquire);
    }

    #[test]
    #[should_panic(expected = "relaxed fence")]
    fn fence_rejects_relaxed() {
        fence(Relaxed);
    }
}
