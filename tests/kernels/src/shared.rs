//! `ptx_sync::shared::Shared<T>`: `ld/st.shared` through `.shared` addresses.

use ptx_sync::shared::Shared;
use ptx_sync::{block, Atomic, Cta, Gpu, Ordering::*};

/// Each thread writes `base + tid` (u32) and `(base + tid) << 32 | tid` (u64) into dynamic
/// shared memory through `Shared`, `block::sync()`, then reads its right-hand neighbour's
/// pair through `Shared` and through the generic pointer (`Shared::generic`), and counts a
/// shared atomic through `from_generic(..).generic()`. `out[block * 4 ..]`: mismatches,
/// neighbour sum (u32), atomic count, 0. Needs `8 + 12 * blockDim.x` bytes of dynamic shared
/// memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn shared_round_trip(base: u32, out: *mut u32) {
    let t = block::thread_x();
    let n = block::dim_x();
    let smem = Shared::dynamic();
    let counter = smem.cast::<u32>();
    let words = smem.add(8).cast::<u32>();
    let wides = smem.add(8 + 4 * n as usize).cast::<u64>();
    if t == 0 {
        counter.write(0);
    }
    words.add(t as usize).write(base + t);
    wides
        .add(t as usize)
        .write(((base + t) as u64) << 32 | t as u64);
    block::sync();
    let r = (t + 1) % n;
    let mut bad = 0u32;
    let w = words.add(r as usize).read();
    bad += (w != base + r) as u32;
    bad += (*words.add(r as usize).generic() != base + r) as u32;
    bad += (wides.add(r as usize).read() != ((base + r) as u64) << 32 | r as u64) as u32;
    let back = Shared::from_generic(words.add(r as usize).generic());
    bad += (back.address() != words.add(r as usize).address()) as u32;
    Atomic::<u32, Cta>::from_ptr(Shared::from_generic(counter.generic()).generic())
        .fetch_add(1, Relaxed);
    block::sync();
    let o = out.add(block::index_x() as usize * 4);
    let g = |i| Atomic::<u32, Gpu>::from_ptr(o.add(i));
    g(0).fetch_add(bad, Relaxed);
    g(1).fetch_add(w, Relaxed);
    if t == 0 {
        g(2).store(counter.read(), Relaxed);
    }
}
