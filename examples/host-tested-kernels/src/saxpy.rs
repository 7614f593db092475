//! `y = a x + y`, CUDA's first kernel, with a grid-stride loop: any grid covers any length.

use ptx_sync::index;

/// `y[i] = a * x[i] + y[i]` for every `i` in `0..n`, each index by exactly one thread: this
/// thread's share of `index::grid_stride(n)` (its grid rank, then every grid-size-th index).
///
/// # Safety
/// `x` and `y` hold `n` values each; nothing else writes `y[..n]` during the launch.
pub unsafe fn saxpy(a: f32, x: *const f32, y: *mut f32, n: usize) {
    for i in index::grid_stride(n) {
        // SAFETY: `i < n`, and no other thread of the launch has this `i`.
        unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
    }
}

#[cfg(test)]
mod tests {
    use super::saxpy;
    use ptx_sync::index::{KernelPtr, run_grid};

    /// The kernel on the host against the same arithmetic per element, for a grid smaller and
    /// larger than `n`, and 2-D.
    #[test]
    fn every_element_is_updated_once() {
        for (grid, block, n) in [(2, 64, 1000), (4, 256, 300), (3, 32, 0)] {
            check(grid.into(), block.into(), n);
        }
        check((2, 3).into(), (8, 4).into(), 777);
    }

    fn check(grid: ptx_sync::index::Dim3, block: ptx_sync::index::Dim3, n: usize) {
        let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let mut y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
        let want: Vec<f32> = (0..n).map(|i| 3.0 * x[i] + y[i]).collect();
        let (xp, yp) = (
            KernelPtr::new(x.as_ptr().cast_mut()),
            KernelPtr::new(y.as_mut_ptr()),
        );
        run_grid(grid, block, || unsafe { saxpy(3.0, xp.get(), yp.get(), n) });
        // Exact: every product and sum here is representable (the GPU may fuse them into an
        // `fma`, with the same result); an element updated twice would differ.
        assert_eq!(y, want, "{grid:?} x {block:?}, n = {n}");
    }
}
