//! `ptx_sync::index` and its host grid runner, `index::run_grid`: every thread of 1-D, 2-D and
//! 3-D launches sees its own exact position once, `block::sync` orders a block's phases, the
//! grid-stride loop covers `0..n` exactly once for `n` below, at and above the grid's size,
//! the lanes of each warp are a real emulated warp, `shared!` variables belong to one block
//! at a time, and misuse fails with a message instead of hanging. Exact values throughout.
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

use ptx_sync::index::{self, run_grid, Dim3, KernelPtr, MAX_BLOCK_THREADS, MAX_GRID_THREADS};
use ptx_sync::{block, warp, Atomic, Gpu, Ordering::*};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Everything `index` tells one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    thread: [u32; 3],
    block: [u32; 3],
    block_dim: [u32; 3],
    grid_dim: [u32; 3],
    thread_rank: u32,
    block_size: u32,
    block_rank: u32,
    block_count: u32,
    global: [usize; 3],
    global_rank: usize,
    global_thread_count: usize,
    warp_rank: u32,
    warp_count: u32,
    lane: u32,
}

fn seen() -> Seen {
    Seen {
        thread: [
            index::thread_idx_x(),
            index::thread_idx_y(),
            index::thread_idx_z(),
        ],
        block: [
            index::block_idx_x(),
            index::block_idx_y(),
            index::block_idx_z(),
        ],
        block_dim: [
            index::block_dim_x(),
            index::block_dim_y(),
            index::block_dim_z(),
        ],
        grid_dim: [
            index::grid_dim_x(),
            index::grid_dim_y(),
            index::grid_dim_z(),
        ],
        thread_rank: index::thread_rank(),
        block_size: index::block_size(),
        block_rank: index::block_rank(),
        block_count: index::block_count(),
        global: [
            index::global_thread_x(),
            index::global_thread_y(),
            index::global_thread_z(),
        ],
        global_rank: index::global_rank(),
        global_thread_count: index::global_thread_count(),
        warp_rank: index::warp_rank(),
        warp_count: index::warp_count(),
        lane: index::lane(),
    }
}

/// What thread `t` of block `b` must see in a launch of `grid` blocks of `blk` threads,
/// computed here from CUDA's definitions (x fastest), not from the crate.
fn expected(grid: [u32; 3], blk: [u32; 3], b: [u32; 3], t: [u32; 3]) -> Seen {
    let thread_rank = t[0] + blk[0] * (t[1] + blk[1] * t[2]);
    let block_size = blk[0] * blk[1] * blk[2];
    let block_rank = b[0] + grid[0] * (b[1] + grid[1] * b[2]);
    let block_count = grid[0] * grid[1] * grid[2];
    let g = |d: usize| (b[d] * blk[d] + t[d]) as usize;
    Seen {
        thread: t,
        block: b,
        block_dim: blk,
        grid_dim: grid,
        thread_rank,
        block_size,
        block_rank,
        block_count,
        global: [g(0), g(1), g(2)],
        global_rank: (block_rank * block_size + thread_rank) as usize,
        global_thread_count: (block_count * block_size) as usize,
        warp_rank: thread_rank / 32,
        warp_count: block_size.div_ceil(32),
        lane: thread_rank % 32,
    }
}

/// Every (block, thread) of the launch, x fastest.
fn all_positions(grid: [u32; 3], blk: [u32; 3]) -> Vec<([u32; 3], [u32; 3])> {
    let cube = |d: [u32; 3]| {
        (0..d[2]).flat_map(move |z| (0..d[1]).flat_map(move |y| (0..d[0]).map(move |x| [x, y, z])))
    };
    cube(grid)
        .flat_map(|b| cube(blk).map(move |t| (b, t)))
        .collect()
}

fn check_launch(grid: impl Into<Dim3>, blk: impl Into<Dim3>) {
    let (grid, blk) = (grid.into(), blk.into());
    let (g, k) = ([grid.x, grid.y, grid.z], [blk.x, blk.y, blk.z]);
    let log = Mutex::new(Vec::new());
    run_grid(grid, blk, || log.lock().unwrap().push(seen()));
    let log = log.into_inner().unwrap();
    let mut by_place: BTreeMap<([u32; 3], [u32; 3]), Vec<Seen>> = BTreeMap::new();
    for s in &log {
        by_place.entry((s.block, s.thread)).or_default().push(*s);
    }
    let want = all_positions(g, k);
    assert_eq!(log.len(), want.len(), "{grid:?} x {blk:?}: threads run");
    for (b, t) in want {
        let got = by_place
            .get(&(b, t))
            .unwrap_or_else(|| panic!("{grid:?} x {blk:?}: thread {t:?} of block {b:?} never ran"));
        assert_eq!(
            got.len(),
            1,
            "thread {t:?} of block {b:?} ran {} times",
            got.len()
        );
        assert_eq!(got[0], expected(g, k, b, t), "thread {t:?} of block {b:?}");
    }
}

#[test]
fn every_thread_sees_its_exact_position_once_in_1d_2d_and_3d_launches() {
    check_launch(1, 1);
    check_launch(3, 64);
    // Partial warps: 50 threads a block (32 + 18).
    check_launch((2, 3), (10, 5));
    check_launch((2, 2, 2), (4, 3, 5));
    // y and z extents of the block only, x of 1.
    check_launch((1, 2, 3), (1, 8, 4));
    // The largest block.
    check_launch(2, (32, 32));
}

#[test]
fn outside_a_run_the_thread_is_a_grid_of_one() {
    assert_eq!(seen(), expected([1; 3], [1; 3], [0; 3], [0; 3]));
    block::sync(); // a block of one: returns at once
    assert!(index::grid_stride(7).eq(0..7));
    // A run leaves nothing behind on the threads that ran it, nor on this one.
    run_grid(2, 2, || {});
    assert_eq!(seen(), expected([1; 3], [1; 3], [0; 3], [0; 3]));
}

#[test]
fn block_sync_orders_the_phases_of_a_block() {
    // Each round, every thread writes its slot (late threads sleep first), block::sync, then
    // every thread reads every slot of its block: all written this round. A second sync
    // keeps the next round's writes after this round's reads.
    const ROUNDS: u32 = 20;
    let (grid, blk) = (Dim3::new(2, 2, 1), Dim3::new(8, 6, 1));
    let threads = blk.count() as usize;
    let slots: Vec<Atomic<u32, Gpu>> = (0..4 * threads).map(|_| Atomic::new(u32::MAX)).collect();
    let stale = Atomic::<u32, Gpu>::new(0);
    run_grid(grid, blk, || {
        let t = index::thread_rank() as usize;
        let mine = &slots[index::block_rank() as usize * threads..][..threads];
        for r in 0..ROUNDS {
            if (t as u32 + r).is_multiple_of(7) {
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
            mine[t].store(r << 16 | t as u32, Relaxed);
            block::sync();
            for (u, s) in mine.iter().enumerate() {
                if s.load(Relaxed) != r << 16 | u as u32 {
                    stale.fetch_add(1, Relaxed);
                }
            }
            block::sync();
        }
    });
    assert_eq!(
        stale.load(Relaxed),
        0,
        "reads that missed a write before block::sync"
    );
}

#[test]
fn grid_stride_covers_every_index_exactly_once() {
    // 3 blocks of 40 threads: 120 threads, for n below, at, and above it (with a remainder),
    // and 0; then a 2-D launch, whose rank and count span both extents.
    for (grid, blk, n) in [
        (Dim3::from(3), Dim3::from(40), 0usize),
        (Dim3::from(3), Dim3::from(40), 1),
        (Dim3::from(3), Dim3::from(40), 77),
        (Dim3::from(3), Dim3::from(40), 120),
        (Dim3::from(3), Dim3::from(40), 1000),
        (Dim3::from((2, 3)), Dim3::from((4, 4, 2)), 1537),
    ] {
        let hits: Vec<Atomic<u32, Gpu>> = (0..n + 64).map(|_| Atomic::new(0)).collect();
        let shares = Mutex::new(Vec::new());
        run_grid(grid, blk, || {
            let it = index::grid_stride(n);
            let len = it.len();
            let mut count = 0;
            for i in it {
                hits[i].fetch_add(1, Relaxed);
                count += 1;
            }
            assert_eq!(count, len, "size_hint of grid_stride");
            shares.lock().unwrap().push(count);
        });
        for (i, h) in hits.iter().enumerate() {
            let want = u32::from(i < n);
            assert_eq!(
                h.load(Relaxed),
                want,
                "index {i} of n = {n} ({grid:?} x {blk:?})"
            );
        }
        // Balanced: every thread's share is n / threads, rounded down or up.
        let threads = (grid.count() * blk.count()) as usize;
        let shares = shares.into_inner().unwrap();
        assert_eq!(shares.len(), threads);
        assert!(shares
            .iter()
            .all(|&s| s == n / threads || s == n.div_ceil(threads)));
    }
}

#[test]
fn the_lanes_of_each_warp_are_an_emulated_warp() {
    // 50 threads a block: a full warp and one of 18 lanes. Ballots, shuffles and a warp sum
    // see exactly the lanes of the thread's own warp.
    let bad = Atomic::<u32, Gpu>::new(0);
    run_grid(2, (10, 5), || {
        let (w, lane) = (index::warp_rank(), index::lane());
        let lanes = if w == 0 { 32 } else { 18 };
        let mask = if lanes == 32 {
            u32::MAX
        } else {
            (1 << lanes) - 1
        };
        let ok = warp::ballot(mask, true) == mask
            && warp::active_mask() == mask
            && warp::shfl_idx(mask, index::thread_rank(), 0) == w * 32
            && (0..lanes).contains(&lane);
        let mut sum = index::thread_rank();
        let mut d = 1;
        while d < 32 {
            let other = warp::shfl_xor(mask, sum, d);
            // A partner past the last lane of a partial warp is not in the mask.
            if lane ^ d < lanes {
                sum += other;
            }
            d *= 2;
        }
        let full = lanes == 32 && sum == (w * 32..w * 32 + 32).sum::<u32>();
        if !ok || (lanes == 32 && !full) {
            bad.fetch_add(1, Relaxed);
        }
    });
    assert_eq!(bad.load(Relaxed), 0);
}

ptx_sync::shared! {
    /// One block's partial sums, one per warp (the block's shared memory on the GPU; one
    /// `static` on the host, which run_grid gives to one block at a time).
    static PARTIALS: [u32; 32];
}

#[test]
fn shared_variables_belong_to_the_block_that_runs() {
    // A block sum through a `shared!` array: warp sums by shuffle, one per warp into the
    // array, block::sync, then thread 0 adds them up. Blocks running at once would mix their
    // partial sums in the one host `static`.
    let blocks = 6u32;
    let sums: Vec<Atomic<u32, Gpu>> = (0..blocks).map(|_| Atomic::new(0)).collect();
    run_grid(blocks, 128, || {
        let v = index::global_rank() as u32;
        let mut s = v;
        for d in [16, 8, 4, 2, 1] {
            s += warp::shfl_down(u32::MAX, s, d);
        }
        let p = PARTIALS.as_ptr().cast::<u32>();
        if index::lane() == 0 {
            unsafe { p.add(index::warp_rank() as usize).write(s) };
        }
        block::sync();
        if index::thread_rank() == 0 {
            let total = (0..index::warp_count() as usize)
                .map(|w| unsafe { p.add(w).read() })
                .sum();
            sums[index::block_rank() as usize].store(total, Relaxed);
        }
        block::sync(); // the partials are read before the next block could reuse them
    });
    for (b, s) in sums.iter().enumerate() {
        let first = b as u32 * 128;
        assert_eq!(
            s.load(Relaxed),
            (first..first + 128).sum::<u32>(),
            "block {b}"
        );
    }
}

#[test]
fn kernel_pointers_are_shared_by_the_threads_of_a_run() {
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y = vec![1.0f32; n];
    let (xp, yp) = (
        KernelPtr::new(x.as_ptr().cast_mut()),
        KernelPtr::new(y.as_mut_ptr()),
    );
    run_grid(3, 64, || {
        for i in index::grid_stride(n) {
            unsafe { *yp.get().add(i) += 2.0 * *xp.get().add(i) };
        }
    });
    assert!(y
        .iter()
        .enumerate()
        .all(|(i, &v)| v == 2.0 * i as f32 + 1.0));
}

/// The panic message of `f`.
fn panic_of(f: impl FnOnce()) -> String {
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("should panic");
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn a_failing_thread_fails_the_run_naming_it() {
    let later = Atomic::<u32, Gpu>::new(0);
    let m = panic_of(|| {
        run_grid((2, 2), 64, || {
            if index::block_rank() == 2 {
                // The other threads of the block wait here; the failure stops them.
                if index::thread_rank() == 37 {
                    panic!("wrong value {}", index::global_rank());
                }
                block::sync();
            }
            if index::block_rank() == 3 {
                later.fetch_add(1, Relaxed);
            }
        })
    });
    assert!(
        m.contains("block [0, 1, 0]") && m.contains("thread [37, 0, 0]: wrong value 165"),
        "{m}"
    );
    assert_eq!(
        later.load(Relaxed),
        0,
        "blocks after a failed one do not run"
    );
}

#[test]
fn block_sync_waiting_for_returned_threads_fails_instead_of_hanging() {
    let m = panic_of(|| {
        run_grid(1, 40, || {
            if index::thread_rank() < 39 {
                block::sync(); // thread 39 never comes: a hang on the GPU
            }
        })
    });
    assert!(m.contains("returned"), "{m}");
}

#[test]
fn launches_beyond_the_limits_are_refused() {
    assert!(panic_of(|| run_grid(0, 32, || {})).contains("extent of 0"));
    assert!(panic_of(|| run_grid(1, (0, 1), || {})).contains("extent of 0"));
    let m = panic_of(|| run_grid(1, MAX_BLOCK_THREADS + 1, || {}));
    assert!(
        m.contains("1025 threads") && m.contains("at most 1024"),
        "{m}"
    );
    assert!(panic_of(|| run_grid(1, (1, 1, 65), || {})).contains("64 along z"));
    let blocks = (MAX_GRID_THREADS / 256 + 1) as u32;
    let m = panic_of(|| run_grid(blocks, 256, || {}));
    assert!(m.contains("at most 65536"), "{m}");
    // At the limits it runs.
    let count = Atomic::<u32, Gpu>::new(0);
    run_grid(1, MAX_BLOCK_THREADS, || {
        count.fetch_add(1, Relaxed);
    });
    assert_eq!(count.load(Relaxed), MAX_BLOCK_THREADS);
}

#[test]
fn dim3_converts_as_cuda_launches_do() {
    assert_eq!(Dim3::from(5), Dim3::new(5, 1, 1));
    assert_eq!(Dim3::from((5, 2)), Dim3::new(5, 2, 1));
    assert_eq!(Dim3::from((5, 2, 3)).count(), 30);
    assert_eq!(
        Dim3::new(u32::MAX, u32::MAX, 1).count(),
        (u32::MAX as u64).pow(2)
    );
    assert_eq!(
        Dim3::new(u32::MAX, u32::MAX, 2).count(),
        u64::MAX,
        "saturates"
    );
    let m = panic_of(|| run_grid((u32::MAX, u32::MAX, 3), 1, || {}));
    assert!(m.contains("at most 65536"), "{m}");
}

#[test]
fn runs_take_turns_so_a_block_has_its_shared_variables_to_itself() {
    // Four runs started at once from four threads (as the test harness does): each block's
    // OWNER must never name another run's block.
    ptx_sync::shared! { static OWNER: Atomic<u32, Gpu>; }
    let clashes = Atomic::<u32, Gpu>::new(0);
    std::thread::scope(|s| {
        for run in 1..=4u32 {
            let clashes = &clashes;
            s.spawn(move || {
                run_grid(3, 64, || {
                    let owner = unsafe { OWNER.get() };
                    let me = run << 8 | index::block_rank();
                    if index::thread_rank() == 0 {
                        owner.store(me, Relaxed);
                    }
                    block::sync();
                    std::thread::yield_now();
                    if owner.load(Relaxed) != me {
                        clashes.fetch_add(1, Relaxed);
                    }
                    block::sync();
                });
            });
        }
    });
    assert_eq!(clashes.load(Relaxed), 0);
}

#[test]
fn run_grid_inside_a_run_is_refused() {
    let m = panic_of(|| run_grid(1, 1, || run_grid(1, 1, || {})));
    assert!(m.contains("called from a thread of a run_grid"), "{m}");
}
