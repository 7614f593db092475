//! Managed (unified) memory that host threads and kernels read-modify-write at the same time:
//! [`ManagedBuffer`].

use crate::mapped::MappedWord;
use crate::{Device, Error, Result};
use cudarc::driver::{result, sys};
use ptx_sync::{AtomicF32, AtomicF64, Sys};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64};

/// `len` zeroed `T`s of managed memory (`cuMemAllocManaged` with `CU_MEM_ATTACH_GLOBAL`), on a
/// GPU where host threads and kernels may use it at the same time
/// (`concurrentManagedAccess` = 1). The host reads and writes it through atomics
/// ([`atomics`](Self::atomics), the same views as [`MappedBuffer`](crate::MappedBuffer)'s, and
/// the `Sys` primitives of [`SysWords`](crate::sys::SysWords) for `u32`); kernels get
/// [`device_ptr`](Self::device_ptr), the same address.
///
/// [`MappedBuffer`](crate::MappedBuffer) is pinned host memory mapped into the GPU: loads and
/// stores from both sides work everywhere, but a host RMW racing a GPU RMW on one word is
/// atomic only where `hostNativeAtomicSupported` is 1 (not on an x86 host over PCIe; see
/// [`sys`](crate::sys)). libcu++'s rule names the other place where CPU and GPU threads may
/// access one atomic object concurrently: managed memory (`cuMemAllocManaged`) on a GPU whose
/// `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is 1. There the driver keeps one page
/// coherent between the two (it migrates it to whichever side touches it), so a
/// `Semaphore<Sys>`, `Latch<Sys>` or `Barrier<Sys>` that host threads and GPU blocks count
/// down together loses nothing. [`new`](Self::new) checks the attribute and is
/// [`Error::NoConcurrentManagedAccess`] where it is 0.
///
/// The price is the migration: a word that both sides hammer moves between host and GPU
/// memory, each move a page fault of several microseconds. Keep the shared words few and
/// small (a buffer is at most [`MAX_BYTES`](Self::MAX_BYTES)), and bulk data in device memory.
///
/// ```no_run
/// use ptx_sync_host::sys::SysWords;
/// use ptx_sync_host::Device;
/// use std::sync::atomic::Ordering::Relaxed;
/// # fn main() -> Result<(), ptx_sync_host::Error> {
/// let gpu = Device::open(0)?;
/// // Error::NoConcurrentManagedAccess where host and GPU may not share managed memory.
/// let words = gpu.managed::<u32>(64)?;
/// // 132 GPU blocks and 4 host threads count down one latch, and all of them wait on it.
/// words.atomics_u32()[0].store(132 + 4, Relaxed);
/// // ... launch a kernel that gets `words.device_ptr()` and whose blocks each run
/// //     `Latch::<Sys>::from_ptr(ptr).arrive_and_wait()` ...
/// std::thread::scope(|s| {
///     for _ in 0..4 {
///         s.spawn(|| words.latch(0).arrive_and_wait());
///     }
/// });
/// # Ok(()) }
/// ```
pub struct ManagedBuffer<T: MappedWord> {
    /// The one address of the allocation, for the host and every GPU.
    ptr: u64,
    len: usize,
    /// The allocating GPU's context: the drop frees the memory in it.
    ctx: std::sync::Arc<cudarc::driver::CudaContext>,
    _t: PhantomData<T>,
}

impl<T: MappedWord> std::fmt::Debug for ManagedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("word", &std::any::type_name::<T>())
            .field("len", &self.len)
            .field("device_ptr", &format_args!("{:#x}", self.ptr))
            .finish()
    }
}

// SAFETY: as `MappedBuffer`: the host reaches the elements only as `&[T::Atomic]` (`atomics`),
// so the buffer is `Send` and `Sync` as a `Box<[T::Atomic]>` is. The allocation belongs to no
// thread (the driver's memory, freed through the context in any thread).
unsafe impl<T: MappedWord> Send for ManagedBuffer<T> where T::Atomic: Send {}
unsafe impl<T: MappedWord> Sync for ManagedBuffer<T> where T::Atomic: Sync {}

/// The byte count of `len` `T`s of managed memory, or why it is refused (checked before the
/// driver is asked): [`Error::Empty`] for 0, [`Error::TooLarge`] where the product overflows,
/// [`Error::ManagedTooLarge`] above [`ManagedBuffer::MAX_BYTES`].
pub(crate) fn managed_bytes<T>(len: usize) -> Result<usize> {
    if len == 0 {
        return Err(Error::Empty("managed buffer length"));
    }
    let bytes = crate::error::byte_len::<T>(len, "managed buffer")?;
    if bytes > MAX_BYTES {
        return Err(Error::ManagedTooLarge {
            len,
            elem_bytes: std::mem::size_of::<T>(),
            limit: MAX_BYTES,
        });
    }
    Ok(bytes)
}

const MAX_BYTES: usize = 64 << 20;

impl<T: MappedWord> ManagedBuffer<T> {
    /// The most bytes one buffer may hold: 64 MiB. Managed memory is for the words host threads
    /// and kernels synchronize on, not for bulk data: asking the driver for more managed memory
    /// than the GPU has free makes it evict and migrate pages, which on a GPU other processes
    /// share can stall them all for a long time, where a failed `cuMemAlloc` would just fail.
    /// Larger sizes are [`Error::ManagedTooLarge`], before the driver is asked.
    pub const MAX_BYTES: usize = MAX_BYTES;

    /// Allocates and zeroes the buffer. Refused before the driver is asked: a zero length
    /// ([`Error::Empty`]), a byte count that overflows ([`Error::TooLarge`]) or exceeds
    /// [`MAX_BYTES`](Self::MAX_BYTES) ([`Error::ManagedTooLarge`]). Then
    /// [`Error::Stuck`] on a stuck GPU, and [`Error::NoConcurrentManagedAccess`] on one whose
    /// kernels and host threads may not use managed memory at the same time.
    pub fn new(gpu: &Device, len: usize) -> Result<Self> {
        let bytes = managed_bytes::<T>(len)?;
        gpu.usable()?;
        if !gpu.concurrent_managed_access()? {
            return Err(Error::NoConcurrentManagedAccess { gpu: gpu.ordinal() });
        }
        gpu.context()
            .bind_to_thread()
            .map_err(|e| gpu.driver_error("binding the context", e))?;
        // SAFETY: plain allocation; freed in Drop.
        let ptr =
            unsafe { result::malloc_managed(bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL) }
                .map_err(|e| gpu.driver_error("cuMemAllocManaged", e))?;
        // Zeroed by the host: the memory is new, so no kernel uses it, and with concurrent
        // managed access the host may touch it at any time (no copy queued behind a kernel
        // that could block, as a cuMemset might).
        // SAFETY: `ptr` is a managed allocation of `bytes` bytes, addressable by the host (the
        // same address: unified addressing), not shared yet.
        unsafe { std::ptr::write_bytes(ptr as usize as *mut u8, 0, bytes) };
        Ok(ManagedBuffer {
            ptr,
            len,
            ctx: gpu.context().clone(),
            _t: PhantomData,
        })
    }

    /// The address kernels use (pass it as a `u64` / `*mut T` argument); the host's address
    /// of the same memory too.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: empty buffers are refused at construction.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The host's view: one atomic per element (std's for integers, the device crate's bit
    /// views for floats, as [`MappedBuffer::atomics`](crate::MappedBuffer::atomics)).
    pub fn atomics(&self) -> &[T::Atomic] {
        const {
            assert!(std::mem::size_of::<T::Atomic>() == std::mem::size_of::<T>());
            assert!(std::mem::align_of::<T::Atomic>() == std::mem::align_of::<T>());
        }
        // SAFETY: `T::Atomic` has `T`'s size and alignment (managed allocations are at least
        // 256-byte aligned); the memory is zeroed, valid for any bit pattern of these atomics,
        // and lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr as usize as *const T::Atomic, self.len) }
    }
}

impl ManagedBuffer<u32> {
    /// [`atomics`](Self::atomics) for `u32`.
    pub fn atomics_u32(&self) -> &[AtomicU32] {
        self.atomics()
    }
}

impl ManagedBuffer<u64> {
    /// [`atomics`](Self::atomics) for `u64`.
    pub fn atomics_u64(&self) -> &[AtomicU64] {
        self.atomics()
    }
}

impl ManagedBuffer<i32> {
    /// [`atomics`](Self::atomics) for `i32`.
    pub fn atomics_i32(&self) -> &[AtomicI32] {
        self.atomics()
    }
}

impl ManagedBuffer<i64> {
    /// [`atomics`](Self::atomics) for `i64`.
    pub fn atomics_i64(&self) -> &[AtomicI64] {
        self.atomics()
    }
}

impl ManagedBuffer<f32> {
    /// [`atomics`](Self::atomics) for `f32`: bit views with `load`, `store`, `swap`,
    /// `compare_exchange` and a compare-exchange-loop `fetch_add` (see
    /// [`view_f32`](crate::view_f32)).
    pub fn atomics_f32(&self) -> &[AtomicF32<Sys>] {
        self.atomics()
    }
}

impl ManagedBuffer<f64> {
    /// [`atomics`](Self::atomics) for `f64` (see [`view_f64`](crate::view_f64)).
    pub fn atomics_f64(&self) -> &[AtomicF64<Sys>] {
        self.atomics()
    }
}

/// The words of a `ManagedBuffer<u32>` as `Sys` primitives for host threads: here every view
/// may race the GPU's read-modify-writes (`Barrier` arrivals from both sides included).
impl crate::sys::SysWords for ManagedBuffer<u32> {
    fn sys_words(&self) -> &[AtomicU32] {
        self.atomics_u32()
    }
}

impl<T: MappedWord> Drop for ManagedBuffer<T> {
    fn drop(&mut self) {
        // `cuMemFree` waits in the driver, and a kernel on any GPU may still use the memory
        // (it is attached globally): freed once every GPU is idle, never while one is stuck
        // (then it stays allocated until the process exits).
        let (ptr, ctx) = (self.ptr, self.ctx.clone());
        crate::watchdog::free_when_idle(
            None,
            Box::new(move || {
                if ctx.bind_to_thread().is_ok() {
                    // SAFETY: allocated by cuMemAllocManaged in `new`; no view of it outlives
                    // the buffer, and no kernel uses it (every GPU is idle).
                    let _ = unsafe { result::free_sync(ptr) };
                }
            }),
        );
    }
}

impl Device {
    /// `len` zeroed `T`s of managed memory that host threads and this GPU's kernels use at the
    /// same time: [`ManagedBuffer::new`].
    pub fn managed<T: MappedWord>(&self, len: usize) -> Result<ManagedBuffer<T>> {
        ManagedBuffer::new(self, len)
    }

    /// Whether host threads and this GPU's kernels may access managed memory at the same time
    /// (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS`): what [`ManagedBuffer`] needs.
    pub fn concurrent_managed_access(&self) -> Result<bool> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)
            .map(|v| v != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused<T>(len: usize) -> Error {
        managed_bytes::<T>(len).expect_err("refused")
    }

    /// Every size is judged before the driver: zero, an overflowing product, one byte past the
    /// cap; the cap itself and everything below it pass, with their exact byte counts.
    #[test]
    fn sizes_are_checked_before_the_driver() {
        let mut checks = 0;
        assert!(matches!(
            refused::<u32>(0),
            Error::Empty("managed buffer length")
        ));
        checks += 1;
        for (len, elem) in [
            (usize::MAX, 4),
            (usize::MAX / 4 + 1, 4),
            (isize::MAX as usize / 8 + 1, 8),
        ] {
            let e = if elem == 4 {
                refused::<u32>(len)
            } else {
                refused::<f64>(len)
            };
            match e {
                Error::TooLarge {
                    what: "managed buffer",
                    len: l,
                    elem_bytes,
                } => assert_eq!((l, elem_bytes), (len, elem)),
                other => panic!("{len} x {elem}: {other:?}"),
            }
            checks += 1;
        }
        let cap = ManagedBuffer::<u32>::MAX_BYTES;
        assert_eq!(cap, 64 * 1024 * 1024);
        assert_eq!(managed_bytes::<u32>(cap / 4).unwrap(), cap);
        assert_eq!(managed_bytes::<u64>(cap / 8).unwrap(), cap);
        assert_eq!(managed_bytes::<u32>(1).unwrap(), 4);
        checks += 3;
        for (e, len, elem) in [
            (refused::<u32>(cap / 4 + 1), cap / 4 + 1, 4),
            (refused::<i64>(cap / 8 + 1), cap / 8 + 1, 8),
            (
                refused::<f32>(isize::MAX as usize / 4),
                isize::MAX as usize / 4,
                4,
            ),
        ] {
            match e {
                Error::ManagedTooLarge {
                    len: l,
                    elem_bytes,
                    limit,
                } => assert_eq!((l, elem_bytes, limit), (len, elem, cap)),
                other => panic!("{len} x {elem}: {other:?}"),
            }
            checks += 1;
        }
        // Every length from 1 to just past the cap, at both word sizes, in steps that hit
        // the edge exactly.
        for elem in [4usize, 8] {
            let edge = cap / elem;
            for len in (1..edge - 64).step_by(4093).chain(edge - 64..=edge + 64) {
                let got = if elem == 4 {
                    managed_bytes::<u32>(len)
                } else {
                    managed_bytes::<u64>(len)
                };
                match got {
                    Ok(bytes) => assert!(len <= edge && bytes == len * elem, "{len} x {elem}"),
                    Err(Error::ManagedTooLarge { .. }) => assert!(len > edge, "{len} x {elem}"),
                    Err(other) => panic!("{len} x {elem}: {other:?}"),
                }
                checks += 1;
            }
        }
        let steps = |elem: usize| (cap / elem - 64 - 1).div_ceil(4093) + 129;
        assert_eq!(checks, 1 + 3 + 3 + 3 + steps(4) + steps(8));
    }

    #[test]
    fn messages_say_what_to_do() {
        let e = Error::ManagedTooLarge {
            len: (64 << 20) / 4 + 1,
            elem_bytes: 4,
            limit: 64 << 20,
        };
        assert_eq!(
            e.to_string(),
            "managed buffer of 16777217 elements of 4 bytes needs 67108868 bytes, more than the \
             67108864 (64 MiB) a ManagedBuffer may hold: managed memory is for the words host \
             threads and kernels synchronize on (asking for more than the GPU has free can \
             stall a GPU other processes share); keep bulk data in device memory \
             (Device::zeros)"
        );
        let e = Error::NoConcurrentManagedAccess { gpu: 1 };
        assert_eq!(
            e.to_string(),
            "GPU 1 has no concurrent managed access (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS \
             is 0): host threads may not touch managed memory while a kernel runs, so they \
             cannot share words in it with kernels. Use a MappedBuffer (pinned host memory) \
             instead: loads and stores from both sides work there, and read-modify-writes from \
             both sides on one word need Device::host_native_atomics (ptx_sync_host::sys)"
        );
    }
}
