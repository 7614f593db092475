//! Symmetric memory: one allocation of the same size at the same address on every PE.

use super::world::Inner;
use crate::error::counted;
use crate::{Error, Launch, Result};
use cudarc::driver::{CudaSlice, DeviceRepr, DriverError, PushKernelArg};
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::Arc;

/// `len` `T`s of NVSHMEM's symmetric heap ([`World::alloc`](super::World::alloc)): this PE's
/// copy, at the address every PE's copy has. A kernel takes it as a `Symmetric<T>` (device
/// crate, `ptx_sync::nvshmem`): push `&buffer` as the argument (its device address), and the
/// kernel reaches another PE's copy through NVSHMEM calls naming that PE.
///
/// It dereferences to a cudarc [`CudaSlice`], so the [`Device`](crate::Device)'s copies take it
/// (`world.gpu().download(&buffer)`), as do [`download`](Self::download) and
/// [`write`](Self::write) here.
///
/// Dropping it frees it with `nvshmem_free`, which is collective (every PE frees its buffers in
/// the same order) and is done after this GPU's work, each wait bounded by the world's limit.
/// Where that cannot end (the GPU is stuck, a PE exited, an earlier NVSHMEM call never
/// returned) the memory is left allocated: the process should exit, and the driver frees it.
pub struct SymmetricBuffer<T: DeviceRepr> {
    /// A view of the memory for cudarc's copies and launches; never frees it (taken back with
    /// `leak` before `nvshmem_free`).
    slice: ManuallyDrop<CudaSlice<T>>,
    ptr: u64,
    len: usize,
    world: Arc<Inner>,
    _t: PhantomData<T>,
}

// SAFETY: as cudarc's `CudaSlice<T>` (which is `Send` and `Sync`): a device address, and the
// world's state, whose NVSHMEM calls run on one thread of their own behind a channel.
unsafe impl<T: DeviceRepr> Send for SymmetricBuffer<T> {}
unsafe impl<T: DeviceRepr> Sync for SymmetricBuffer<T> {}

impl<T: DeviceRepr> fmt::Debug for SymmetricBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SymmetricBuffer")
            .field("word", &std::any::type_name::<T>())
            .field("len", &self.len)
            .field("device_ptr", &format_args!("{:#x}", self.ptr))
            .field("pe", &self.world.rank.pe)
            .finish()
    }
}

impl<T: DeviceRepr> SymmetricBuffer<T> {
    /// # Safety
    /// `ptr` is `len` `T`s from `nvshmem_malloc` of `world`, freed by nothing else.
    pub(crate) unsafe fn from_raw(world: Arc<Inner>, ptr: u64, len: usize) -> Self {
        // SAFETY: the caller's contract; the slice never frees it (see Drop).
        let slice = unsafe { world.gpu.stream().upgrade_device_ptr::<T>(ptr, len) };
        SymmetricBuffer {
            slice: ManuallyDrop::new(slice),
            ptr,
            len,
            world,
            _t: PhantomData,
        }
    }

    /// Zeroes this PE's copy and waits for it (bounded by the world's limit).
    pub(crate) fn zero(&self) -> Result<()>
    where
        T: cudarc::driver::ValidAsZeroBits,
    {
        let gpu = &self.world.gpu;
        // Through a view: cudarc's memset takes `&mut`, and the slice is only ever shared.
        // SAFETY: the same memory, not freed by the view (leaked at once).
        let mut view = unsafe { gpu.stream().upgrade_device_ptr::<T>(self.ptr, self.len) };
        let zeroed = gpu.stream().memset_zeros(&mut view);
        view.leak();
        zeroed.map_err(|e| gpu.driver_error("zeroing a symmetric buffer", e))?;
        gpu.wait(self.world.timeout)
    }

    /// The device address of this PE's copy (every PE's copy has the same): what a kernel's
    /// `Symmetric<T>` parameter takes.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: empty buffers are refused at allocation.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The PE whose copy this is.
    pub fn pe(&self) -> u32 {
        self.world.rank.pe
    }

    /// The cudarc view of this PE's copy (what `Deref` gives).
    pub fn as_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// Copies this PE's copy to the host after the work launched on the world's GPU so far
    /// ([`Device::download`](crate::Device::download), waiting at most the GPU's watchdog).
    pub fn download(&self) -> Result<Vec<T>> {
        self.world.gpu.download(&self.slice)
    }

    /// Copies `data` into this PE's copy from element `offset` on, after the work launched on
    /// the world's GPU so far (waited for at most the world's limit); returns once the copy is
    /// done. Past the end is [`Error::Driver`] with `CUDA_ERROR_INVALID_VALUE`, before any
    /// copy.
    pub fn write(&self, offset: usize, data: &[T]) -> Result<()> {
        let gpu = &self.world.gpu;
        let what = format!(
            "writing {} at {offset} into a symmetric buffer of {}",
            counted(data.len() as u128, "element"),
            counted(self.len as u128, "element")
        );
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > self.len)
        {
            return Err(Error::Driver {
                what: format!("{what}: out of bounds"),
                source: DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_VALUE),
            });
        }
        if data.is_empty() {
            return Ok(());
        }
        gpu.usable()?;
        gpu.settle(
            self.world.timeout,
            "the GPU work before writing a symmetric buffer",
        )?;
        // SAFETY: the range lies inside the allocation (checked); the view is leaked, not freed.
        let mut view = unsafe {
            gpu.stream().upgrade_device_ptr::<T>(
                self.ptr + (offset * std::mem::size_of::<T>()) as u64,
                data.len(),
            )
        };
        let copied = gpu.stream().memcpy_htod(data, &mut view);
        view.leak();
        copied.map_err(|e| gpu.driver_error(&what, e))?;
        gpu.wait(self.world.timeout)
    }
}

impl<T: DeviceRepr> Deref for SymmetricBuffer<T> {
    type Target = CudaSlice<T>;

    fn deref(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

/// A symmetric buffer passes its device address (the kernel's `Symmetric<T>`), ordered on the
/// stream as a device slice is.
unsafe impl<'a, 'b: 'a, T: DeviceRepr> PushKernelArg<&'b SymmetricBuffer<T>> for Launch<'a> {
    fn arg(&mut self, arg: &'b SymmetricBuffer<T>) -> &mut Self {
        <Self as PushKernelArg<&'b CudaSlice<T>>>::arg(self, &arg.slice)
    }
}

/// As `&SymmetricBuffer<T>`.
unsafe impl<'a, 'b: 'a, T: DeviceRepr> PushKernelArg<&'b mut SymmetricBuffer<T>> for Launch<'a> {
    fn arg(&mut self, arg: &'b mut SymmetricBuffer<T>) -> &mut Self {
        <Self as PushKernelArg<&'b CudaSlice<T>>>::arg(self, &arg.slice)
    }
}

impl<T: DeviceRepr> Drop for SymmetricBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here. `leak` hands the address back without freeing it.
        let _ = unsafe { ManuallyDrop::take(&mut self.slice) }.leak();
        let world = &self.world;
        if world.skip_collectives().is_some() {
            return; // leaked: nvshmem_free is collective and would not return
        }
        // A kernel may still use it: nvshmem_free only after this GPU's work.
        if world
            .settle_gpu("the GPU work before freeing a symmetric buffer")
            .is_err()
        {
            return;
        }
        let ptr = self.ptr as usize;
        // SAFETY: allocated by nvshmem_malloc of this world, freed once, here; no work on the
        // GPU uses it any more.
        let _ = world.call("nvshmem_free", move |lib| unsafe {
            (lib.free)(ptr as *mut std::ffi::c_void)
        });
    }
}
