//! Mapped pinned host memory: one allocation the CPU and GPU both address, for `Sys`-scope
//! synchronization between a host thread and a kernel.
//!
//! The host sees each element through an atomic of the same size: std's `AtomicU32`,
//! `AtomicI32`, `AtomicU64`, `AtomicI64`, and for floats (std has no float atomics) the device
//! crate's [`AtomicF32<Sys>`] / [`AtomicF64<Sys>`], whose host backend is a bit view over an
//! `AtomicU32` / `AtomicU64`: `load`/`store`/`swap`/`compare_exchange` move the bits and
//! `fetch_add` is a compare-exchange loop. They are the types a kernel uses on the same words
//! (`Atomic::<f32, Sys>::from_ptr`), there as `ld/st/atom.sys` instructions. The `view_*`
//! functions give the same views over any slice of std atomics (host-only code and tests).

use crate::{Device, Error, Result};
use cudarc::driver::{result, sys};
use ptx_sync::{AtomicF32, AtomicF64, Sys};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64};

/// Only this crate's word types: `atomics()` reinterprets the buffer's zeroed memory as
/// `Atomic`, which is sound only for atomics over plain integer or float bits.
mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for i32 {}
    impl Sealed for u64 {}
    impl Sealed for i64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A word type the host side can view atomically: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`
/// (sealed: the buffer's memory is viewed as `Atomic`, which must accept every bit pattern).
pub trait MappedWord: sealed::Sealed + Copy + 'static {
    /// The atomic of the same size and alignment: std's for integers, the device crate's
    /// host backend (a bit view) for floats.
    type Atomic;
}
impl MappedWord for u32 {
    type Atomic = AtomicU32;
}
impl MappedWord for i32 {
    type Atomic = AtomicI32;
}
impl MappedWord for u64 {
    type Atomic = AtomicU64;
}
impl MappedWord for i64 {
    type Atomic = AtomicI64;
}
impl MappedWord for f32 {
    type Atomic = AtomicF32<Sys>;
}
impl MappedWord for f64 {
    type Atomic = AtomicF64<Sys>;
}

/// Reinterprets a slice of atomics as another atomic of the same size and alignment.
///
/// # Safety
/// `A` and `B` have the same size and alignment, and every bit pattern of `A` is a valid `B`
/// (both are atomics over plain integer or float words).
unsafe fn reinterpret<A, B>(words: &[A]) -> &[B] {
    const {
        assert!(std::mem::size_of::<A>() == std::mem::size_of::<B>());
        assert!(std::mem::align_of::<A>() == std::mem::align_of::<B>());
    }
    // SAFETY: same layout (checked above), same length, same lifetime; the caller guarantees
    // the bit patterns.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<B>(), words.len()) }
}

/// The `u32` words as `i32`s (the same bits, two's complement).
pub fn view_i32(words: &[AtomicU32]) -> &[AtomicI32] {
    // SAFETY: `AtomicI32` and `AtomicU32` are both a `u32`-sized, -aligned cell of any bits.
    unsafe { reinterpret(words) }
}

/// The `u32` words as `f32`s: [`AtomicF32<Sys>`], a view of each word's bits (`load`, `store`,
/// `swap`, bitwise `compare_exchange`; `fetch_add`/`fetch_sub` by compare-exchange loop).
///
/// ```
/// use ptx_sync_host::view_f32;
/// use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
/// let words = [AtomicU32::new(0), AtomicU32::new(1.5f32.to_bits())];
/// let f = view_f32(&words);
/// assert_eq!(f[1].fetch_add(2.0, Relaxed), 1.5);
/// assert_eq!(words[1].load(Relaxed), 3.5f32.to_bits());
/// ```
pub fn view_f32(words: &[AtomicU32]) -> &[AtomicF32<Sys>] {
    // SAFETY: `Atomic<f32, Sys>` is transparent over a cell of `f32` (size and alignment 4,
    // checked), and every `u32` bit pattern is an `f32`.
    unsafe { reinterpret(words) }
}

/// The `u64` words as `i64`s (the same bits, two's complement).
pub fn view_i64(words: &[AtomicU64]) -> &[AtomicI64] {
    // SAFETY: as in `view_i32`, at 8 bytes.
    unsafe { reinterpret(words) }
}

/// The `u64` words as `f64`s: [`AtomicF64<Sys>`], as [`view_f32`] at 8 bytes.
pub fn view_f64(words: &[AtomicU64]) -> &[AtomicF64<Sys>] {
    // SAFETY: as in `view_f32`, at 8 bytes.
    unsafe { reinterpret(words) }
}

/// `len` zeroed `T`s of pinned host memory mapped into the GPU's address space
/// (`cuMemHostAlloc` with `DEVICEMAP | PORTABLE`). The host reads and writes it through std
/// atomics ([`atomics`](Self::atomics)); kernels get [`device_ptr`](Self::device_ptr).
pub struct MappedBuffer<T: MappedWord> {
    host: *mut T,
    device: u64,
    len: usize,
    /// The allocating GPU's context: the drop frees the memory in it.
    ctx: std::sync::Arc<cudarc::driver::CudaContext>,
    _t: PhantomData<T>,
}

impl<T: MappedWord> std::fmt::Debug for MappedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MappedBuffer")
            .field("word", &std::any::type_name::<T>())
            .field("len", &self.len)
            .field("device_ptr", &format_args!("{:#x}", self.device))
            .finish()
    }
}

// SAFETY: the allocation is pinned host memory, as cudarc's `PinnedHostSlice` (`Send` and
// `Sync`); the host reaches the elements only as `&[T::Atomic]` (`atomics`), so the buffer is
// `Send` and `Sync` as a `Box<[T::Atomic]>` is: where `T::Atomic` is (every atomic is both).
unsafe impl<T: MappedWord> Send for MappedBuffer<T> where T::Atomic: Send {}
unsafe impl<T: MappedWord> Sync for MappedBuffer<T> where T::Atomic: Sync {}

impl<T: MappedWord> MappedBuffer<T> {
    /// Allocates and zeroes the buffer.
    pub fn new(gpu: &Device, len: usize) -> Result<Self> {
        if len == 0 {
            return Err(Error::Empty("mapped buffer length"));
        }
        gpu.usable()?;
        // Checked: `atomics` makes a slice of `len` elements of this memory.
        let bytes = crate::error::byte_len::<T>(len, "mapped buffer")?;
        gpu.context()
            .bind_to_thread()
            .map_err(|e| gpu.driver_error("binding the context", e))?;
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: plain allocation; freed in Drop.
        let host = unsafe { result::malloc_host(bytes, flags) }
            .map_err(|e| gpu.driver_error("cuMemHostAlloc", e))? as *mut T;
        // SAFETY: `host` holds `bytes` writable bytes.
        unsafe { std::ptr::write_bytes(host as *mut u8, 0, bytes) };
        let mut device: sys::CUdeviceptr = 0;
        // SAFETY: `host` came from cuMemHostAlloc with DEVICEMAP.
        let r =
            unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host as *mut _, 0) }.result();
        if let Err(e) = r {
            // SAFETY: allocated above, not shared yet.
            let _ = unsafe { result::free_host(host as *mut _) };
            return Err(gpu.driver_error("cuMemHostGetDevicePointer", e));
        }
        Ok(MappedBuffer {
            host,
            device,
            len,
            ctx: gpu.context().clone(),
            _t: PhantomData,
        })
    }

    /// The address kernels use (pass it as a `u64` / `*mut T` argument).
    pub fn device_ptr(&self) -> u64 {
        self.device
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: empty buffers are refused at construction.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The host's view: one std atomic per element.
    pub fn atomics(&self) -> &[T::Atomic] {
        const {
            assert!(std::mem::size_of::<T::Atomic>() == std::mem::size_of::<T>());
            assert!(std::mem::align_of::<T::Atomic>() == std::mem::align_of::<T>());
        }
        // SAFETY: `T::Atomic` has `T`'s size and alignment; the memory lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.host as *const T::Atomic, self.len) }
    }
}

impl MappedBuffer<u32> {
    /// [`atomics`](Self::atomics) for `u32`.
    pub fn atomics_u32(&self) -> &[AtomicU32] {
        self.atomics()
    }
}

impl MappedBuffer<u64> {
    /// [`atomics`](Self::atomics) for `u64`.
    pub fn atomics_u64(&self) -> &[AtomicU64] {
        self.atomics()
    }
}

impl MappedBuffer<i32> {
    /// [`atomics`](Self::atomics) for `i32`.
    pub fn atomics_i32(&self) -> &[AtomicI32] {
        self.atomics()
    }
}

impl MappedBuffer<i64> {
    /// [`atomics`](Self::atomics) for `i64`.
    pub fn atomics_i64(&self) -> &[AtomicI64] {
        self.atomics()
    }
}

impl MappedBuffer<f32> {
    /// [`atomics`](Self::atomics) for `f32`: bit views with `load`, `store`, `swap`,
    /// `compare_exchange` and a compare-exchange-loop `fetch_add` (see [`view_f32`]).
    pub fn atomics_f32(&self) -> &[AtomicF32<Sys>] {
        self.atomics()
    }
}

impl MappedBuffer<f64> {
    /// [`atomics`](Self::atomics) for `f64` (see [`view_f64`]).
    pub fn atomics_f64(&self) -> &[AtomicF64<Sys>] {
        self.atomics()
    }
}

impl<T: MappedWord> Drop for MappedBuffer<T> {
    fn drop(&mut self) {
        // `cuMemFreeHost` waits in the driver, and a kernel on any GPU the memory is mapped for
        // may still use it: freed once every GPU is idle, never while one is stuck.
        let (host, ctx) = (self.host as usize, self.ctx.clone());
        crate::watchdog::free_when_idle(
            None,
            Box::new(move || {
                if ctx.bind_to_thread().is_ok() {
                    // SAFETY: allocated by cuMemHostAlloc in `new`; no view of it outlives the
                    // buffer, and no kernel uses it (every GPU is idle).
                    let _ = unsafe { result::free_host(host as *mut _) };
                }
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
    use std::thread;

    #[test]
    fn integer_views_are_the_same_bits() {
        let w32: Vec<AtomicU32> = (0..3).map(|_| AtomicU32::new(0)).collect();
        let i = view_i32(&w32);
        i[1].store(-2, Release);
        assert_eq!(w32[1].load(Acquire), (-2i32) as u32);
        assert_eq!(i[1].fetch_add(5, AcqRel), -2);
        assert_eq!(w32[1].load(Relaxed), 3);
        assert_eq!(i.len(), 3);
        assert_eq!(i[2].as_ptr() as usize, w32[2].as_ptr() as usize);

        let w64: Vec<AtomicU64> = (0..2).map(|_| AtomicU64::new(u64::MAX)).collect();
        let j = view_i64(&w64);
        assert_eq!(j[0].load(Relaxed), -1);
        assert_eq!(j[0].fetch_min(i64::MIN, Relaxed), -1);
        assert_eq!(w64[0].load(Relaxed), 1 << 63);
    }

    #[test]
    fn float_views_load_store_and_compare_bits() {
        let w32 = [AtomicU32::new(0), AtomicU32::new(0)];
        let f = view_f32(&w32);
        f[0].store(-1.25, Release);
        assert_eq!(w32[0].load(Acquire), (-1.25f32).to_bits());
        assert_eq!(f[0].swap(f32::NAN, AcqRel), -1.25);
        assert!(f[0].load(Relaxed).is_nan());
        // Bitwise compare-exchange: 0.0 is not -0.0.
        f[1].store(-0.0, Relaxed);
        assert!(f[1].compare_exchange(0.0, 1.0, AcqRel, Acquire).is_err());
        assert_eq!(f[1].compare_exchange(-0.0, 1.0, AcqRel, Acquire), Ok(-0.0));
        assert_eq!(w32[1].load(Relaxed), 1.0f32.to_bits());

        let w64 = [AtomicU64::new(2.5f64.to_bits())];
        let d = view_f64(&w64);
        assert_eq!(d[0].load(Acquire), 2.5);
        d[0].store(1e300, Release);
        assert_eq!(f64::from_bits(w64[0].load(Relaxed)), 1e300);
        assert_eq!(d[0].fetch_sub(1e300, AcqRel), 1e300);
        assert_eq!(d[0].load(Relaxed), 0.0);
    }

    /// The compare-exchange-loop `fetch_add` under contention: steps of 0.25 / 0.5 are exact
    /// in binary, so the sums are exact too, on the same words the integer views see.
    #[test]
    fn float_fetch_add_is_exact_under_contention() {
        const THREADS: u32 = 4;
        const ITERS: u32 = 10_000;
        let w32 = [AtomicU32::new(0)];
        let w64 = [AtomicU64::new(0)];
        thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    for _ in 0..ITERS {
                        view_f32(&w32)[0].fetch_add(0.25, Relaxed);
                        view_f64(&w64)[0].fetch_add(0.5, AcqRel);
                    }
                });
            }
        });
        let n = (THREADS * ITERS) as f64;
        assert_eq!(f32::from_bits(w32[0].load(Relaxed)), (n * 0.25) as f32);
        assert_eq!(f64::from_bits(w64[0].load(Relaxed)), n * 0.5);
    }
}
