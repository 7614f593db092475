//! Mapped pinned host memory: one allocation the CPU and GPU both address, for `Sys`-scope
//! synchronization between a host thread and a kernel.

use crate::{Error, Gpu, Result};
use cudarc::driver::{result, sys};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// A word type the host side can view atomically.
pub trait MappedWord: Copy + 'static {
    /// The std atomic of the same size.
    type Atomic;
}
impl MappedWord for u32 {
    type Atomic = AtomicU32;
}
impl MappedWord for u64 {
    type Atomic = AtomicU64;
}

/// `len` zeroed `T`s of pinned host memory mapped into the GPU's address space
/// (`cuMemHostAlloc` with `DEVICEMAP | PORTABLE`). The host reads and writes it through std
/// atomics ([`atomics`](Self::atomics)); kernels get [`device_ptr`](Self::device_ptr).
pub struct MappedBuffer<T: MappedWord> {
    host: *mut T,
    device: u64,
    len: usize,
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

// SAFETY: the memory is only accessed through atomics on the host.
unsafe impl<T: MappedWord> Send for MappedBuffer<T> {}
unsafe impl<T: MappedWord> Sync for MappedBuffer<T> {}

impl<T: MappedWord> MappedBuffer<T> {
    /// Allocates and zeroes the buffer.
    pub fn new(gpu: &Gpu, len: usize) -> Result<Self> {
        if len == 0 {
            return Err(Error::Empty("mapped buffer length"));
        }
        let bytes = len * std::mem::size_of::<T>();
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

impl<T: MappedWord> Drop for MappedBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc in `new`.
        let _ = unsafe { result::free_host(self.host as *mut _) };
    }
}
