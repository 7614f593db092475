//! Several GPUs of one host: open them, let kernels on one address another's memory, and share
//! one buffer among all of them, for `Sys`-scope synchronization between kernels that run on
//! different GPUs at the same time.
//!
//! The CUDA Programming Guide's pattern: GPU 0 writes its data, then releases a flag at system
//! scope (`st.release.sys`, or `__threadfence_system()` and a store); GPU 1 acquires the flag
//! (`ld.acquire.sys`) and reads the data. The PTX memory model's `.sys` scope covers every
//! thread of the program, those of other GPUs included, so the device crate's primitives at
//! [`Sys`](ptx_sync::Sys) (`Atomic<u32, Sys>`, `Latch<Sys>`, `Barrier<Sys>`, `Semaphore<Sys>`)
//! work across GPUs as they do between a GPU and the host. What the memory must be:
//!
//! - **Portable pinned host memory** ([`PortableBuffer`]): `cuMemHostAlloc` with `PORTABLE |
//!   DEVICEMAP`, mapped into every GPU's address space; each GPU gets its device address from
//!   `cuMemHostGetDevicePointer` in its own context ([`PortableBuffer::device_ptr`]). Loads and
//!   stores work from any GPU. Read-modify-writes from two GPUs (or a GPU and the host) on one
//!   word are atomic with each other only where the link to the host carries native atomics
//!   ([`Device::host_native_atomics`]: `CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED`, 0 on
//!   x86 hosts over PCIe); the Programming Guide warns that atomics on mapped page-locked memory
//!   are "not atomic from the point of view of the host or other devices".
//! - **Peer device memory** ([`PeerBuffer`]): an allocation on one GPU that kernels on another
//!   address directly once peer access is enabled ([`Device::enable_peer_access`]:
//!   `cuCtxEnablePeerAccess`, possible where `cuDeviceCanAccessPeer` says so). Its owner's L2
//!   serves every access, local or remote. Read-modify-writes from the peer are atomic where the
//!   link carries them ([`PeerInfo::native_atomics`]:
//!   `CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED`, true over NVLink).
//!
//! So a flag, a message ring or a ping-pong through binary semaphores (one side stores, the
//! other reads and then exchanges: never two RMWs at once) works in either memory; a `Latch` or
//! `Barrier` that both GPUs count down needs native atomics on the path both take to the word.
//! [`Device::peer_info`] and [`Device::host_native_atomics`] say which; the GPU suite's
//! `multi_gpu_probe` prints them.
//!
//! ```no_run
//! use ptx_sync_host::{Device, PeerBuffer, PortableBuffer};
//! # fn main() -> Result<(), ptx_sync_host::Error> {
//! let gpus = Device::open_at_least(2)?; // Error::TooFewGpus on a machine with one
//! let (g0, g1) = (&gpus[0], &gpus[1]);
//! // Pinned host memory both GPUs address (each through its own device pointer).
//! let host = PortableBuffer::<u32>::new([g0, g1], 1024)?;
//! let (p0, p1) = (host.device_ptr(g0)?, host.device_ptr(g1)?);
//! // Device memory on GPU 0 that kernels on GPU 1 address too.
//! println!("{:?}", g1.peer_info(g0)?); // can_access, native_atomics, ...
//! let peer = PeerBuffer::<u32>::new(g0, 1024)?;
//! let q1 = peer.device_ptr_for(g1)?; // enables GPU 1's access to GPU 0 (Error::NoPeerAccess if it cannot)
//! // ... launch a sender on GPU 0 with p0 (or peer.device_ptr()) and a receiver on GPU 1
//! //     with p1 (or q1), then wait for both: g0.wait(limit)?; g1.wait(limit)?;
//! # let _ = (p0, p1, q1); Ok(()) }
//! ```

use crate::error::counted;
use crate::{driver_available, Device, Error, MappedBuffer, MappedWord, Result};
use cudarc::driver::{result, sys, CudaContext, DeviceRepr, DriverError};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// [`Error::Driver`] for `what`.
fn driver(what: impl Into<String>) -> impl FnOnce(DriverError) -> Error {
    let what = what.into();
    move |source| Error::Driver { what, source }
}

/// Refuses an empty list and any ordinal `>= count`, naming the count.
pub(crate) fn check_ordinals(ordinals: &[usize], count: usize) -> Result<()> {
    if ordinals.is_empty() {
        return Err(Error::Empty("number of GPUs listed"));
    }
    match ordinals.iter().find(|&&o| o >= count) {
        Some(&ordinal) => Err(Error::NoSuchGpu { ordinal, count }),
        None => Ok(()),
    }
}

/// Refuses fewer than `needed` GPUs (and `needed == 0`, an empty request).
fn check_count(needed: usize, count: usize) -> Result<()> {
    if needed == 0 {
        return Err(Error::Empty("number of GPUs"));
    }
    if count < needed {
        return Err(Error::TooFewGpus { needed, count });
    }
    Ok(())
}

/// What the driver says about kernels on one GPU ([`gpu`](Self::gpu)) reaching the memory of
/// another ([`peer`](Self::peer)): one direction; the other may differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerInfo {
    /// The GPU whose kernels would access the memory (ordinal).
    pub gpu: usize,
    /// The GPU that owns the memory (ordinal).
    pub peer: usize,
    /// `cuDeviceCanAccessPeer(gpu, peer)`: whether [`Device::enable_peer_access`] can succeed.
    pub can_access: bool,
    /// `CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED`: peer access over the link is supported.
    pub access_supported: bool,
    /// `CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED`: atomics from `gpu` on `peer`'s memory
    /// are native over the link, so they are atomic with `peer`'s own.
    pub native_atomics: bool,
    /// `CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK`: the link's relative performance (the driver's
    /// ranking; lower is better).
    pub performance_rank: i32,
}

impl fmt::Display for PeerInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GPU {} -> memory of GPU {}: can access {}, access supported {}, native atomics {}, performance rank {}",
            self.gpu,
            self.peer,
            self.can_access as u8,
            self.access_supported as u8,
            self.native_atomics as u8,
            self.performance_rank
        )
    }
}

impl Device {
    /// How many CUDA GPUs the driver sees (`cuDeviceGetCount`); [`Error::NoDriver`] without a
    /// driver (never a panic).
    ///
    /// ```
    /// use ptx_sync_host::{Error, Device};
    /// match Device::count() {
    ///     Ok(n) => println!("{n} GPUs"),
    ///     Err(Error::NoDriver(why)) => println!("no driver here: {why}"),
    ///     Err(e) => panic!("{e}"),
    /// }
    /// ```
    pub fn count() -> Result<usize> {
        driver_available()?;
        result::device::get_count()
            .map(|n| n.max(0) as usize)
            .map_err(driver("counting the GPUs (cuDeviceGetCount)"))
    }

    /// Opens the GPUs of `ordinals`, in that order. An ordinal the machine does not have is
    /// [`Error::NoSuchGpu`] (naming how many it has), before any is opened; an empty list is
    /// [`Error::Empty`]; no driver is [`Error::NoDriver`].
    ///
    /// ```
    /// use ptx_sync_host::{Error, Device};
    /// match Device::open_list(&[0, 5]) {
    ///     Err(Error::NoSuchGpu { ordinal: 5, count }) => println!("only {count} GPUs"),
    ///     Err(Error::NoDriver(_)) => {} // a machine without a driver (CI)
    ///     Err(e) => panic!("{e}"),
    ///     Ok(gpus) => assert_eq!(gpus.len(), 2), // a machine with 6 GPUs or more
    /// }
    /// ```
    pub fn open_list(ordinals: &[usize]) -> Result<Vec<Device>> {
        let count = Device::count()?;
        check_ordinals(ordinals, count)?;
        ordinals.iter().map(|&o| Device::open(o)).collect()
    }

    /// Opens every GPU, in ordinal order; a machine with none is [`Error::TooFewGpus`].
    pub fn open_all() -> Result<Vec<Device>> {
        Device::open_at_least(1)
    }

    /// Opens every GPU if there are at least `needed` ([`Error::TooFewGpus`] otherwise, naming
    /// how many there are): what a test that needs two GPUs calls, skipping on that error.
    pub fn open_at_least(needed: usize) -> Result<Vec<Device>> {
        let count = Device::count()?;
        check_count(needed, count)?;
        (0..count).map(Device::open).collect()
    }

    /// The device ordinal this GPU was opened with.
    pub fn ordinal(&self) -> usize {
        self.context().ordinal()
    }

    /// Whether kernels may read and write pageable host memory (plain `malloc`ed memory) without
    /// registering it (`CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS`: HMM or ATS systems, such as
    /// Grace Hopper). Where it is 0, memory shared with the host must be pinned and mapped
    /// ([`MappedBuffer`], [`PortableBuffer`]).
    pub fn pageable_memory_access(&self) -> Result<bool> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS)
            .map(|v| v != 0)
    }

    /// What the driver says about kernels on this GPU reaching `peer`'s memory
    /// (`cuDeviceCanAccessPeer` and `cuDeviceGetP2PAttribute` with this GPU as the source).
    /// The same device twice is [`Error::NoPeerAccess`]: a GPU reaches its own memory without
    /// peer access.
    pub fn peer_info(&self, peer: &Device) -> Result<PeerInfo> {
        peer_info(self.context(), peer.context())
    }

    /// Lets kernels on this GPU address memory allocated on `peer` (`cuCtxEnablePeerAccess` in
    /// this GPU's context, naming `peer`'s): one direction (call `peer.enable_peer_access(self)`
    /// for the other). Calling it again is harmless. Where the driver says the GPUs cannot
    /// ([`PeerInfo::can_access`] false, or the driver refuses), or for the same device twice,
    /// it is [`Error::NoPeerAccess`] saying why. Returns the pair's [`PeerInfo`].
    ///
    /// Peer access covers memory from `cuMemAlloc` ([`PeerBuffer`]), not memory from the
    /// stream-ordered allocator (cudarc's `alloc_zeros` on GPUs with memory pools, which is what
    /// [`Device::zeros`] uses): pools need `cuMemPoolSetAccess` instead.
    pub fn enable_peer_access(&self, peer: &Device) -> Result<PeerInfo> {
        enable_peer_access(self.context(), peer.context())
    }

    /// [`enable_peer_access`](Self::enable_peer_access) for every ordered pair of `gpus`; the
    /// first pair that cannot is the error. Returns every pair's [`PeerInfo`].
    pub fn enable_peer_access_all(gpus: &[Device]) -> Result<Vec<PeerInfo>> {
        let mut infos = Vec::new();
        for a in gpus {
            for b in gpus {
                if a.ordinal() != b.ordinal() {
                    infos.push(a.enable_peer_access(b)?);
                }
            }
        }
        Ok(infos)
    }
}

fn peer_info(ctx: &CudaContext, peer: &CudaContext) -> Result<PeerInfo> {
    let (gpu, peer_ordinal) = (ctx.ordinal(), peer.ordinal());
    if ctx.cu_device() == peer.cu_device() {
        return Err(Error::NoPeerAccess {
            gpu,
            peer: peer_ordinal,
            why: "it is the same GPU (its kernels reach its own memory without peer access)".into(),
        });
    }
    let (dev, peer_dev) = (ctx.cu_device(), peer.cu_device());
    let mut can = 0;
    // SAFETY: writes one int; both devices are valid (their contexts exist).
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, dev, peer_dev) }
        .result()
        .map_err(driver(format!(
            "asking whether GPU {gpu} can access GPU {peer_ordinal} (cuDeviceCanAccessPeer)"
        )))?;
    let attribute = |a: sys::CUdevice_P2PAttribute, name: &str| {
        let mut v = 0;
        // SAFETY: writes one int; both devices are valid and distinct.
        unsafe { sys::cuDeviceGetP2PAttribute(&mut v, a, dev, peer_dev) }
            .result()
            .map(|()| v)
            .map_err(driver(format!(
                "reading {name} of GPU {gpu} -> GPU {peer_ordinal} (cuDeviceGetP2PAttribute)"
            )))
    };
    use sys::CUdevice_P2PAttribute::*;
    Ok(PeerInfo {
        gpu,
        peer: peer_ordinal,
        can_access: can != 0,
        access_supported: attribute(
            CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
            "CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED",
        )? != 0,
        native_atomics: attribute(
            CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
            "CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED",
        )? != 0,
        performance_rank: attribute(
            CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
            "CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK",
        )?,
    })
}

fn enable_peer_access(ctx: &CudaContext, peer: &CudaContext) -> Result<PeerInfo> {
    let info = peer_info(ctx, peer)?;
    let no = |why: String| Error::NoPeerAccess {
        gpu: info.gpu,
        peer: info.peer,
        why,
    };
    if !info.can_access {
        return Err(no(
            "cuDeviceCanAccessPeer is 0 (no NVLink or PCIe peer path between them, or one the \
             platform disables, e.g. under virtualization or IOMMU isolation)"
                .into(),
        ));
    }
    ctx.bind_to_thread()
        .map_err(driver(format!("binding the context of GPU {}", info.gpu)))?;
    // SAFETY: the current context is `ctx`'s; `peer`'s context is alive for the call.
    match unsafe { sys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) } {
        sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {
            Ok(info)
        }
        r @ (sys::CUresult::CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
        | sys::CUresult::CUDA_ERROR_TOO_MANY_PEERS) => {
            Err(no(format!("cuCtxEnablePeerAccess refused it: {:?}", r)))
        }
        r => Err(driver(format!(
            "enabling GPU {}'s access to GPU {} (cuCtxEnablePeerAccess)",
            info.gpu, info.peer
        ))(DriverError(r))),
    }
}

/// Pinned host memory mapped into several GPUs at once: `len` zeroed `T`s from `cuMemHostAlloc`
/// with `PORTABLE | DEVICEMAP` (portable: pinned for every context, not only the allocating
/// one), with the device address of each GPU from `cuMemHostGetDevicePointer` in that GPU's
/// context ([`device_ptr`](Self::device_ptr)). The host reads and writes it through atomics
/// ([`atomics`](Self::atomics), or the [`sys`](crate::sys) views for `u32`).
///
/// Loads and stores from any GPU and the host meet on the same words; read-modify-writes from
/// two GPUs on one word are atomic with each other only where each GPU's link to the host has
/// native atomics ([`Device::host_native_atomics`]): see the [module](self).
pub struct PortableBuffer<T: MappedWord> {
    buf: MappedBuffer<T>,
    /// Each GPU's context (kept alive as long as the buffer) and its device address.
    maps: Vec<(Arc<CudaContext>, u64)>,
}

impl<T: MappedWord> fmt::Debug for PortableBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let maps: Vec<String> = self
            .maps
            .iter()
            .map(|(c, p)| format!("GPU {}: {p:#x}", c.ordinal()))
            .collect();
        f.debug_struct("PortableBuffer")
            .field("word", &std::any::type_name::<T>())
            .field("len", &self.buf.len())
            .field("device_ptrs", &maps)
            .finish()
    }
}

impl<T: MappedWord> PortableBuffer<T> {
    /// Allocates `len` zeroed `T`s mapped into each of `gpus` (at least one; [`Error::Empty`]
    /// for none or for `len == 0`). The allocation is made in the first GPU's context.
    pub fn new<'a>(gpus: impl IntoIterator<Item = &'a Device>, len: usize) -> Result<Self> {
        let gpus: Vec<&Device> = gpus.into_iter().collect();
        let Some(first) = gpus.first() else {
            return Err(Error::Empty("number of GPUs listed"));
        };
        let buf = MappedBuffer::<T>::new(first, len)?;
        let host = buf.atomics().as_ptr() as *mut c_void;
        let mut maps = vec![(first.context().clone(), buf.device_ptr())];
        for gpu in &gpus[1..] {
            let ctx = gpu.context();
            if maps.iter().any(|(c, _)| c.cu_ctx() == ctx.cu_ctx()) {
                continue; // the same GPU twice
            }
            let what = format!("mapping pinned host memory into GPU {}", gpu.ordinal());
            ctx.bind_to_thread().map_err(driver(what.clone()))?;
            let mut device: sys::CUdeviceptr = 0;
            // SAFETY: `host` is a live cuMemHostAlloc allocation with DEVICEMAP | PORTABLE, so
            // every context may map it.
            unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host, 0) }
                .result()
                .map_err(driver(format!("{what} (cuMemHostGetDevicePointer)")))?;
            maps.push((ctx.clone(), device));
        }
        Ok(PortableBuffer { buf, maps })
    }

    /// The address kernels on `gpu` use; [`Error::NotMapped`] for a GPU the buffer was not
    /// mapped for. (With unified addressing, on every 64-bit platform CUDA supports today, all
    /// are the host address; the driver is asked anyway, as the API requires.)
    pub fn device_ptr(&self, gpu: &Device) -> Result<u64> {
        let ctx = gpu.context().cu_ctx();
        self.maps
            .iter()
            .find(|(c, _)| c.cu_ctx() == ctx)
            .map(|&(_, p)| p)
            .ok_or_else(|| Error::NotMapped {
                gpu: gpu.ordinal(),
                mapped: self.ordinals(),
            })
    }

    /// The ordinals of the GPUs it is mapped for, in the order given to [`new`](Self::new).
    pub fn ordinals(&self) -> Vec<usize> {
        self.maps.iter().map(|(c, _)| c.ordinal()).collect()
    }

    /// The host address of the first element (what unified addressing makes every device
    /// address equal to).
    pub fn host_ptr(&self) -> *const T {
        self.buf.atomics().as_ptr().cast()
    }

    /// The underlying [`MappedBuffer`] (its own `device_ptr` is the first GPU's).
    pub fn mapped(&self) -> &MappedBuffer<T> {
        &self.buf
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Never true: empty buffers are refused at construction.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The host's view: one atomic per element (see [`MappedBuffer::atomics`]).
    pub fn atomics(&self) -> &[T::Atomic] {
        self.buf.atomics()
    }
}

impl PortableBuffer<u32> {
    /// [`atomics`](Self::atomics) for `u32`.
    pub fn atomics_u32(&self) -> &[std::sync::atomic::AtomicU32] {
        self.buf.atomics_u32()
    }
}

impl crate::sys::SysWords for PortableBuffer<u32> {
    fn sys_words(&self) -> &[std::sync::atomic::AtomicU32] {
        self.buf.atomics_u32()
    }
}

impl<T: MappedWord> Drop for PortableBuffer<T> {
    fn drop(&mut self) {
        // `cuMemFreeHost` (the MappedBuffer's drop, after this) wants a current context: the
        // allocating one, still alive because `maps` holds it.
        let _ = self.maps[0].0.bind_to_thread();
    }
}

/// Device memory on one GPU (its owner) that kernels on other GPUs address too once peer
/// access is enabled ([`device_ptr_for`](Self::device_ptr_for) enables it): `len` zeroed `T`s
/// from `cuMemAlloc`, which peer access covers (memory from cudarc's stream-ordered allocator,
/// [`Device::zeros`], would need pool access instead).
///
/// Accesses from the owner and from peers meet in the owner's L2. Read-modify-writes from a
/// peer are atomic with the owner's where [`PeerInfo::native_atomics`] is true.
pub struct PeerBuffer<T: DeviceRepr> {
    ptr: sys::CUdeviceptr,
    len: usize,
    /// The owner's context, alive as long as the memory.
    owner: Arc<CudaContext>,
    /// The owner's [`Device::watchdog`] when it was made: how long `read` waits.
    limit: std::time::Duration,
    _t: PhantomData<T>,
}

impl<T: DeviceRepr> fmt::Debug for PeerBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PeerBuffer")
            .field("word", &std::any::type_name::<T>())
            .field("len", &self.len)
            .field("owner", &self.owner.ordinal())
            .field("device_ptr", &format_args!("{:#x}", self.ptr))
            .finish()
    }
}

// SAFETY: same unsafe impls as cudarc's `CudaSlice<T>`: the buffer is a device address and a
// context handle (`CudaContext` is `Send` and `Sync`); the host never holds a reference to a `T`
// in it, only copies the driver makes (`read`, `write`).
unsafe impl<T: DeviceRepr> Send for PeerBuffer<T> {}
unsafe impl<T: DeviceRepr> Sync for PeerBuffer<T> {}

impl<T: DeviceRepr + Default + Copy> PeerBuffer<T> {
    /// Allocates `len` zeroed `T`s on `owner` (`cuMemAlloc`, `cuMemsetD8`).
    pub fn new(owner: &Device, len: usize) -> Result<Self> {
        if len == 0 {
            return Err(Error::Empty("peer buffer length"));
        }
        owner.usable()?;
        let bytes = crate::error::byte_len::<T>(len, "peer buffer")?;
        let ctx = owner.context();
        let on = format!("on GPU {}", owner.ordinal());
        ctx.bind_to_thread().map_err(driver(format!(
            "binding the context of GPU {}",
            owner.ordinal()
        )))?;
        // SAFETY: a plain allocation in the current context; freed in Drop.
        let ptr = unsafe { result::malloc_sync(bytes) }.map_err(driver(format!(
            "allocating {} {on} (cuMemAlloc)",
            counted(bytes as u128, "byte")
        )))?;
        let buf = PeerBuffer {
            ptr,
            len,
            owner: ctx.clone(),
            limit: owner.watchdog(),
            _t: PhantomData,
        };
        // SAFETY: `bytes` bytes at `ptr`, just allocated.
        unsafe { result::memset_d8_sync(ptr, 0, bytes) }.map_err(driver(format!(
            "zeroing {} {on} (cuMemsetD8)",
            counted(bytes as u128, "byte")
        )))?;
        Ok(buf)
    }

    /// The ordinal of the GPU the memory is on.
    pub fn owner(&self) -> usize {
        self.owner.ordinal()
    }

    /// The address, for kernels on the owner (and, with unified addressing, on every GPU that
    /// has peer access to the owner: see [`device_ptr_for`](Self::device_ptr_for)).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The address kernels on `gpu` use: on the owner, [`device_ptr`](Self::device_ptr); on
    /// another GPU the same address after enabling that GPU's access to the owner
    /// ([`Device::enable_peer_access`]; [`Error::NoPeerAccess`] where it cannot).
    pub fn device_ptr_for(&self, gpu: &Device) -> Result<u64> {
        if gpu.context().cu_device() != self.owner.cu_device() {
            enable_peer_access(gpu.context(), &self.owner)?;
        }
        Ok(self.ptr)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: empty buffers are refused at construction.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies the buffer to the host (`cuMemcpyDtoH`) after the work launched on the owner,
    /// waited for at most the owner's [`Device::watchdog`] ([`Error::Timeout`] past it;
    /// [`Error::Stuck`] at once where the owner is stuck).
    pub fn read(&self) -> Result<Vec<T>> {
        // The synchronous copy waits for the owner's context in the driver: wait first, bounded.
        crate::watchdog::settle_all(
            self.owner(),
            self.limit,
            &format!(
                "the GPU work before reading a peer buffer of GPU {}",
                self.owner()
            ),
        )?;
        let mut out = vec![T::default(); self.len];
        self.owner.bind_to_thread().map_err(driver(format!(
            "binding the context of GPU {}",
            self.owner()
        )))?;
        // SAFETY: `out` holds as many `T`s as the allocation.
        unsafe { result::memcpy_dtoh_sync(&mut out, self.ptr) }.map_err(driver(format!(
            "copying a peer buffer from GPU {} (cuMemcpyDtoH)",
            self.owner()
        )))?;
        Ok(out)
    }

    /// Copies `data` into the buffer from element `offset` on (`cuMemcpyHtoD`, synchronous).
    /// Past the end is [`Error::Driver`] with `CUDA_ERROR_INVALID_VALUE`, before any copy.
    pub fn write(&self, offset: usize, data: &[T]) -> Result<()> {
        let what = format!(
            "writing {} at {offset} into a peer buffer of {} on GPU {}",
            counted(data.len() as u128, "element"),
            counted(self.len as u128, "element"),
            self.owner()
        );
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > self.len)
        {
            return Err(driver(format!("{what}: out of bounds"))(DriverError(
                sys::CUresult::CUDA_ERROR_INVALID_VALUE,
            )));
        }
        if data.is_empty() {
            return Ok(());
        }
        self.owner.bind_to_thread().map_err(driver(what.clone()))?;
        // No overflow: `offset <= self.len`, whose size in bytes `new` checked.
        let dst = self.ptr + (offset * std::mem::size_of::<T>()) as u64;
        // SAFETY: `dst..dst + size_of_val(data)` lies inside the allocation (checked).
        unsafe { result::memcpy_htod_sync(dst, data) }
            .map_err(driver(format!("{what} (cuMemcpyHtoD)")))
    }
}

impl<T: DeviceRepr> Drop for PeerBuffer<T> {
    fn drop(&mut self) {
        // `cuMemFree` waits for the owner's context, and a kernel on a peer may still use the
        // memory: freed once every GPU is idle, never while one is stuck.
        let (ptr, owner) = (self.ptr, self.owner.clone());
        crate::watchdog::free_when_idle(
            None,
            Box::new(move || {
                if owner.bind_to_thread().is_ok() {
                    // SAFETY: allocated by cuMemAlloc in the owner's context, which `owner`
                    // keeps alive; no kernel uses it (every GPU is idle).
                    let _ = unsafe { result::free_sync(ptr) };
                }
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_past_the_count_name_the_count() {
        let e = check_ordinals(&[0, 5], 1).unwrap_err();
        assert!(matches!(
            e,
            Error::NoSuchGpu {
                ordinal: 5,
                count: 1
            }
        ));
        assert_eq!(
            e.to_string(),
            "there is no GPU 5: this machine has 1 GPU (ordinal 0)"
        );
        assert_eq!(
            check_ordinals(&[2], 2).unwrap_err().to_string(),
            "there is no GPU 2: this machine has 2 GPUs (ordinals 0 to 1)"
        );
        assert_eq!(
            check_ordinals(&[0], 0).unwrap_err().to_string(),
            "there is no GPU 0: this machine has no GPU"
        );
        assert_eq!(
            check_ordinals(&[], 8).unwrap_err().to_string(),
            "number of GPUs listed must not be zero"
        );
        // Past i32::MAX too: such an ordinal never reaches the driver (which takes an i32).
        for ordinal in [1 << 31, 1 << 32, usize::MAX] {
            assert!(matches!(
                check_ordinals(&[ordinal], 8),
                Err(Error::NoSuchGpu { ordinal: o, count: 8 }) if o == ordinal
            ));
        }
        assert!(check_ordinals(&[1, 0, 1], 2).is_ok());
    }

    #[test]
    fn too_few_gpus_says_how_many_there_are() {
        let e = check_count(2, 1).unwrap_err();
        assert!(matches!(
            e,
            Error::TooFewGpus {
                needed: 2,
                count: 1
            }
        ));
        assert_eq!(
            e.to_string(),
            "this needs 2 GPUs, but this machine has 1 GPU (ordinal 0)"
        );
        assert_eq!(
            check_count(1, 0).unwrap_err().to_string(),
            "this needs 1 GPU, but this machine has no GPU"
        );
        assert!(check_count(2, 2).is_ok() && check_count(1, 8).is_ok());
        assert!(matches!(check_count(0, 8), Err(Error::Empty(_))));
    }

    #[test]
    fn peer_and_mapping_errors_say_which_gpus() {
        let e = Error::NoPeerAccess {
            gpu: 1,
            peer: 0,
            why: "cuDeviceCanAccessPeer is 0".into(),
        };
        assert_eq!(
            e.to_string(),
            "kernels on GPU 1 cannot access the memory of GPU 0: cuDeviceCanAccessPeer is 0"
        );
        let e = Error::NotMapped {
            gpu: 2,
            mapped: vec![0, 1],
        };
        assert_eq!(
            e.to_string(),
            "the buffer is not mapped for GPU 2, only for GPUs 0, 1"
        );
        let e = Error::NotMapped {
            gpu: 1,
            mapped: vec![0],
        };
        assert_eq!(
            e.to_string(),
            "the buffer is not mapped for GPU 1, only for GPU 0"
        );
        let p = PeerInfo {
            gpu: 1,
            peer: 0,
            can_access: true,
            access_supported: true,
            native_atomics: false,
            performance_rank: 0,
        };
        assert_eq!(
            p.to_string(),
            "GPU 1 -> memory of GPU 0: can access 1, access supported 1, native atomics 0, performance rank 0"
        );
    }

    /// Whatever the machine: without a driver every way in is `NoDriver` with the driver
    /// check's reason (never a panic); with one, an ordinal past the count is `NoSuchGpu`
    /// naming the count, and asking for more GPUs than there are is `TooFewGpus`.
    #[test]
    fn opening_several_gpus_fails_with_typed_errors() {
        if let Some(why) = crate::device::tests::no_driver_reason() {
            let no_driver = |r: Result<Vec<Device>>, what: &str| match r {
                Err(Error::NoDriver(reason)) => assert_eq!(reason, why, "{what}"),
                Err(e) => panic!("{what}: expected NoDriver, got {e}"),
                Ok(_) => panic!("{what}: opened GPUs without a driver"),
            };
            match Device::count() {
                Err(Error::NoDriver(reason)) => assert_eq!(reason, why),
                other => panic!("Device::count without a driver: {other:?}"),
            }
            no_driver(Device::open_list(&[5]), "open_list(&[5])");
            no_driver(Device::open_all(), "open_all");
            no_driver(Device::open_at_least(2), "open_at_least(2)");
            return;
        }
        let count = Device::count().expect("a driver that cannot count its GPUs");
        match Device::open_list(&[0, count]) {
            Err(Error::NoSuchGpu { ordinal, count: c }) => {
                assert_eq!((ordinal, c), (count, count))
            }
            other => panic!("open_list(&[0, {count}]): {other:?}"),
        }
        match Device::open_at_least(count + 1) {
            Err(Error::TooFewGpus { needed, count: c }) => {
                assert_eq!((needed, c), (count + 1, count))
            }
            other => panic!("open_at_least({}): {other:?}", count + 1),
        }
        if count == 0 {
            return;
        }
        let gpus = Device::open_all().expect("opening every GPU");
        assert_eq!(gpus.len(), count);
        for (i, g) in gpus.iter().enumerate() {
            assert_eq!(g.ordinal(), i);
            assert!(matches!(
                g.peer_info(g),
                Err(Error::NoPeerAccess { gpu, peer, .. }) if gpu == i && peer == i
            ));
        }
        let buf = PortableBuffer::<u32>::new(&gpus[..1], 4).expect("a portable buffer");
        if count == 1 {
            return;
        }
        match buf.device_ptr(&gpus[1]) {
            Err(Error::NotMapped { gpu: 1, mapped }) => assert_eq!(mapped, [0]),
            other => panic!("device_ptr on GPU 1 of a buffer mapped for GPU 0: {other:?}"),
        }
    }
}
