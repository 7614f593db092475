//! The phase and count API borrowed from libcu++ on the GPU (tests/src/cases/phases.rs):
//! `Barrier::arrive_n`, `wait_parity`, `try_wait_parity`, `Token::parity`, and in-kernel
//! `Latch::init` / `Semaphore::init`.

use ptx_sync::{block, Atomic, Barrier, Gpu, Latch, Ordering::*, Semaphore};

/// `rounds` phases of a `Barrier<Gpu>` (at `bar`, expecting 3 arrivals per block) where thread
/// 0 of each block arrives for two (`arrive_n(2)`) and thread 32 for one, and both wait with
/// the parity of the phase they count themselves (`wait_parity`), not with the token. Before
/// the phase, thread 0 writes `r + 1` into its block's slot of buffer `r & 1` (`slots`: 2 x
/// blocks u32); after it, thread 0 reads its right neighbour's slot. `stats` (u32): [0] stale
/// neighbour reads, [1] tokens whose parity is not the phase's, [2] `try_wait_parity` false
/// after the wait, [3] neighbour reads (exactly rounds x blocks). 64 threads a block,
/// cooperative launch.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn barrier_parity_rounds(
    bar: *mut u64,
    slots: *mut u32,
    rounds: u32,
    stats: *mut u32,
) {
    let bar = Barrier::<Gpu>::from_ptr(bar);
    let (t, b, blocks) = (block::thread_x(), block::index_x(), block::grid_x());
    let (mut stale, mut parity, mut early, mut reads) = (0u32, 0u32, 0u32, 0u32);
    for r in 0..rounds {
        let row = slots.add(((r & 1) * blocks) as usize);
        let odd = r & 1 == 1;
        if t == 0 {
            core::ptr::write_volatile(row.add(b as usize), r + 1);
        }
        block::sync();
        if t == 0 || t == 32 {
            let token = if t == 0 {
                bar.arrive_n(2)
            } else {
                bar.arrive()
            };
            parity += (token.parity() != odd) as u32;
            bar.wait_parity(odd);
            early += !bar.try_wait_parity(odd) as u32;
        }
        block::sync();
        if t == 0 {
            let right = (b + 1) % blocks;
            stale += (core::ptr::read_volatile(row.add(right as usize)) != r + 1) as u32;
            reads += 1;
        }
    }
    let s = |i: usize| Atomic::<u32, Gpu>::from_ptr(stats.add(i));
    s(0).fetch_add(stale, Relaxed);
    s(1).fetch_add(parity, Relaxed);
    s(2).fetch_add(early, Relaxed);
    s(3).fetch_add(reads, Relaxed);
}

/// Thread 0 of block 0 sets the latch at `latch` to `n` arrivals and the semaphore at `sem`
/// (`Semaphore<Gpu, 1024>`) to `n` units, in place.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn latch_semaphore_init(latch: *mut u32, sem: *mut u32, n: u32) {
    if block::index_x() == 0 && block::thread_x() == 0 {
        Latch::<Gpu>::from_ptr(latch).init(n);
        Semaphore::<Gpu, 1024>::from_ptr(sem).init(n);
    }
}

/// Thread 0 of every block counts the latch down by one, takes a unit of the semaphore
/// (`try_acquire`) and adds 1 to `taken[0]` if it got one.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn latch_semaphore_use(
    latch: *mut u32,
    sem: *mut u32,
    taken: *mut u32,
) {
    if block::thread_x() == 0 {
        Latch::<Gpu>::from_ptr(latch).count_down();
        if Semaphore::<Gpu, 1024>::from_ptr(sem).try_acquire() {
            Atomic::<u32, Gpu>::from_ptr(taken).fetch_add(1, Relaxed);
        }
    }
}
