//! A testing thread's view of one launch: which instances it plays, where their locations are,
//! the stress the rest of the grid applies, and the rendezvous before the test.

use crate::launch::{Launch, MAX_REGS};
use ptx_sync::{block, volatile, Atomic, Gpu, Ordering::Relaxed, Scope};

/// Polls of the rendezvous word before a thread gives up and starts anyway (a rendezvous
/// that cannot hang: a late block only makes its instances less likely to overlap).
const RENDEZVOUS_POLLS: u32 = 1 << 15;

/// One testing thread of a launch.
pub struct Thread {
    launch: Launch,
    mem: *mut u32,
    out: *mut u32,
    meet: *mut u32,
    block: u32,
    lane: u32,
}

/// Kernel entry for every litmus kernel: a thread of a stressing block hammers its scratch
/// line and gets `None`; a testing thread pre-stresses and gets its [`Thread`].
///
/// # Safety
/// The pointers are the launch's buffers, sized by the host from `*launch`.
#[inline(always)]
pub unsafe fn enter(
    launch: *const Launch,
    mem: *mut u32,
    out: *mut u32,
    scratch: *mut u32,
    meet: *mut u32,
) -> Option<Thread> {
    let launch = *launch;
    let b = launch.logical_block(block::rank());
    let line = scratch.add(launch.stress_word(b) as usize);
    if b >= launch.testing_blocks {
        stress(line, launch.stress_iters, launch.stress_pattern);
        return None;
    }
    stress(line, launch.pre_stress_iters, launch.pre_stress_pattern);
    Some(Thread {
        launch,
        mem,
        out,
        meet,
        block: b,
        lane: block::thread_rank(),
    })
}

/// Memory stress on one scratch word (Sorensen & Donaldson, PLDI 2016): `ld/st.volatile`, so
/// the test's own `ld/st.{relaxed,acquire,release}` stand apart in the PTX. Pattern 0:
/// store-store, 1: store-load, 2: load-store, 3: load-load. The loads feed an exit test that
/// never fires (values stay below `iters`) so nothing is dead code.
#[inline(always)]
unsafe fn stress(p: *mut u32, iters: u32, pattern: u32) {
    let mut i = 0;
    while i < iters {
        match pattern {
            0 => {
                volatile::write_volatile(p, i);
                volatile::write_volatile(p, i + 1);
            }
            1 => {
                volatile::write_volatile(p, i);
                if volatile::read_volatile(p) > 1 << 30 {
                    break;
                }
            }
            2 => {
                if volatile::read_volatile(p) > 1 << 30 {
                    break;
                }
                volatile::write_volatile(p, i);
            }
            _ => {
                if volatile::read_volatile(p).wrapping_add(volatile::read_volatile(p)) > 1 << 30 {
                    break;
                }
            }
        }
        i += 1;
    }
}

impl Thread {
    /// Location `loc` of the instance whose role `role` this thread plays. The address is
    /// computed here, before [`Thread::go`] (an asm the compiler cannot move it past), so the
    /// test's accesses follow each other with no arithmetic between them.
    #[inline(always)]
    pub fn at<S: Scope>(&self, role: u32, loc: u32) -> &Atomic<u32, S> {
        let i = self.launch.instance(self.block, self.lane, role);
        // SAFETY: the host sized `mem` to `launch.test_words()`, which `word` stays below.
        let mut p = unsafe { self.mem.add(self.launch.word(i, loc) as usize) };
        // SAFETY: passes the register through unchanged; not `pure`, so it stays before `go`.
        unsafe { core::arch::asm!("// litmus address {p}", p = inout(reg64) p, options(nostack)) };
        // SAFETY: the word is 4-byte aligned global memory that only this launch uses.
        unsafe { Atomic::from_ptr(p) }
    }

    /// Where the registers of the instance whose role `role` this thread plays go: register
    /// `k` of the outcome (load order, thread by thread) at `[k]`.
    #[inline(always)]
    pub fn regs(&self, role: u32) -> *mut u32 {
        let i = self.launch.instance(self.block, self.lane, role);
        // SAFETY: the host sized `out` to `MAX_REGS` words per instance.
        unsafe { self.out.add((i * MAX_REGS) as usize) }
    }

    /// The rendezvous: lane 0 of every testing warp arrives, then every thread polls until all
    /// warps have, or [`RENDEZVOUS_POLLS`] polls passed. Relaxed: it lines threads up in time,
    /// it orders nothing (the test's own orders are what is under test).
    #[inline(always)]
    pub fn go(&self) {
        if self.launch.rendezvous == 0 {
            return;
        }
        // SAFETY: `meet` is the launch's rendezvous word, zeroed by the host before the launch.
        let meet = unsafe { Atomic::<u32, Gpu>::from_ptr(self.meet) };
        let warps = self.launch.instances() / 32;
        if self.lane.is_multiple_of(32) {
            meet.red_add(1, Relaxed);
        }
        let mut polls = 0;
        while meet.load(Relaxed) < warps && polls < RENDEZVOUS_POLLS {
            polls += 1;
        }
    }
}

/// Marks the start of a role (or the end of the test) in the PTX, so the golden test can find
/// each role's instructions: `// litmus role N` / `// litmus end`.
macro_rules! mark {
    ($text:literal) => {
        // SAFETY: a comment; not `nomem`, so no memory access moves across it.
        unsafe { core::arch::asm!(concat!("// litmus ", $text), options(nostack)) }
    };
}
pub(crate) use mark;
