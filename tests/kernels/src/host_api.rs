//! Kernels of the host API tests (tests/src/cases/host_api.rs): typed arguments of every size
//! by value and by reference, a cooperative grid, a cluster launch, and device statics that the
//! host reads and writes (`Module::read_global` / `write_global`).

use ptx_sync::{block, Atomic, Gpu, GridBarrier, Ordering::*, Spin};

/// Counted by `host_api_count` and `host_api_add`; the host reads and writes it as a `u32`.
#[no_mangle]
static HOST_API_COUNTER: Atomic<u32, Gpu> = Atomic::new(0);

/// What `host_api_count` adds per thread; the host writes it between launches.
#[no_mangle]
static mut HOST_API_STEP: u32 = 1;

/// One word per thread of a 3-D launch (flat thread index `i`, x fastest): for `i < n`,
/// `out[i] = a * i + b + add_one + (1 << shift) + 2 * half` (wrapping, in u64). Parameters of
/// 8, 4, 8, 4, 1, 1 and 4 bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn host_api_affine(
    out: *mut u64,
    n: u32,
    a: u64,
    b: i32,
    add_one: bool,
    shift: u8,
    half: f32,
) {
    let threads = block::dim_x() * block::dim_y() * block::dim_z();
    let i = block::rank() * threads + block::thread_rank();
    if i < n {
        let v = a
            .wrapping_mul(i as u64)
            .wrapping_add(b as i64 as u64)
            .wrapping_add(add_one as u64)
            .wrapping_add(1u64 << (shift & 63))
            .wrapping_add((half * 2.0) as u64);
        *out.add(i as usize) = v;
    }
}

/// `rounds` grid-wide rounds over a cooperative launch (`bar`: one zeroed u32): every thread
/// adds 1 to `counts[r]`, the grid syncs (`GridBarrier`), and every thread checks that
/// `counts[r]` is the grid's thread count; mismatches are added to `*errors`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn host_api_grid_rounds(
    bar: *mut u32,
    counts: *mut u32,
    rounds: u32,
    errors: *mut u32,
) {
    let grid = GridBarrier::<Spin>::from_ptr(bar);
    let total = block::count() * block::dim_x() * block::dim_y() * block::dim_z();
    let mut bad = 0u32;
    for r in 0..rounds {
        let count = Atomic::<u32, Gpu>::from_ptr(counts.add(r as usize));
        count.red_add(1, Relaxed);
        grid.sync();
        bad += (count.load(Relaxed) != total) as u32;
    }
    if bad != 0 {
        Atomic::<u32, Gpu>::from_ptr(errors).fetch_add(bad, Relaxed);
    }
}

/// After `cluster::sync()`, thread 0 of each block writes
/// `out[block] = tag + 10000 * cluster index + 100 * rank in the cluster + blocks per cluster`.
#[cfg(target_feature = "sm_90")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn host_api_cluster_shape(out: *mut u32, tag: u32) {
    use ptx_sync::cluster;
    cluster::sync();
    if block::thread_rank() == 0 {
        *out.add(block::rank() as usize) = tag
            + 10_000 * cluster::index_x()
            + 100 * cluster::block_rank()
            + cluster::block_count();
    }
}

/// Every thread adds `HOST_API_STEP` to `HOST_API_COUNTER`; `*first_seen` (u32::MAX before)
/// becomes the smallest value any add returned: the counter's value before the launch.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn host_api_count(first_seen: *mut u32) {
    let step = core::ptr::read_volatile(core::ptr::addr_of!(HOST_API_STEP));
    let before = HOST_API_COUNTER.fetch_add(step, Relaxed);
    Atomic::<u32, Gpu>::from_ptr(first_seen).fetch_min(before, Relaxed);
}

/// Thread 0 adds `v` to the u32 at `counter` (the host passes `Module::global_ptr`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn host_api_add(counter: *mut u32, v: u32) {
    if block::thread_rank() == 0 && block::rank() == 0 {
        Atomic::<u32, Gpu>::from_ptr(counter).fetch_add(v, Relaxed);
    }
}
