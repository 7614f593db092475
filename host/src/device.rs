use crate::ptx::PtxText;
use crate::{Error, Result};
use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr,
    DriverError, ValidAsZeroBits,
};
use std::fmt;
use std::mem::ManuallyDrop;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Whether a CUDA driver can be used here; `Err` is always [`Error::NoDriver`], whose reason
/// says why not: no `libcuda.so`, one that lacks entry points this crate calls (not NVIDIA's driver),
/// the CUDA toolkit's stub library, or a failed `cuInit`. Never panics (cudarc's dynamic
/// loader panics on a missing library or symbol, so both are checked first).
///
/// ```
/// use ptx_sync_host::{driver_available, Error};
/// if let Err(Error::NoDriver(why)) = driver_available() {
///     println!("skipped: no CUDA driver ({why})"); // libcuda.so could not be loaded ...
/// }
/// ```
pub fn driver_available() -> Result<()> {
    crate::loader::init().map_err(Error::NoDriver)
}

/// One GPU: its context and the stream everything here launches and copies on.
///
/// A handle never blocks when dropped: the GPU's context stays alive until the process exits
/// (the CUDA runtime's rule too), and after a deadlock the GPU is stuck and every call returns
/// [`Error::Stuck`] at once (see [`Error::Timeout`]).
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// The context object's first extra stream, made at open (see `open`).
    _tracking: Arc<CudaStream>,
    name: String,
    sms: u32,
    cc: (u32, u32),
    /// The limit of the calls that wait for the stream without taking one.
    watchdog: Duration,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.name)
            .field("ordinal", &self.ctx.ordinal())
            .field(
                "compute_capability",
                &format_args!("sm_{}{}", self.cc.0, self.cc.1),
            )
            .field("sms", &self.sms)
            .finish()
    }
}

impl Device {
    /// Opens GPU `ordinal`; [`Error::NoDriver`] without a driver, [`Error::NoSuchGpu`] for an
    /// ordinal the machine does not have (naming how many it has).
    pub fn open(ordinal: usize) -> Result<Device> {
        // The count first: cudarc passes the ordinal to the driver as an i32, so 1 << 32 would
        // open GPU 0. No count exceeds i32::MAX, so such an ordinal never reaches the driver.
        crate::multi::check_ordinals(&[ordinal], Device::count()?)?;
        let ctx = CudaContext::new(ordinal).map_err(|e| Error::Driver {
            what: format!("opening GPU {ordinal}"),
            source: e,
        })?;
        // Never released: releasing the primary context waits for every kernel in it, so a drop
        // after a deadlock would never return. Like the CUDA runtime's, the context lives until
        // the process exits, and opening the GPU again retains the same one.
        std::mem::forget(ctx.clone());
        crate::watchdog::check(ordinal)?;
        // cudarc synchronizes the whole context when its first extra stream is made (for the
        // buffers made before, whose uses it did not track): a `with_new_stream` after a launch
        // would wait for that kernel. Made here, before this context object has any buffer, the
        // first stream needs no such wait, and event tracking covers every buffer from the start.
        // SAFETY: no buffer of this context object exists while tracking is off.
        unsafe { ctx.disable_event_tracking() };
        let tracking = ctx.new_stream();
        // SAFETY: as above.
        unsafe { ctx.enable_event_tracking() };
        let tracking = tracking.map_err(|e| Error::Driver {
            what: format!("creating a stream on GPU {ordinal}"),
            source: e,
        })?;
        let stream = ctx.default_stream();
        crate::watchdog::register_stream(ordinal, &stream);
        let what = |e| Error::Driver {
            what: format!("reading the attributes of GPU {ordinal}"),
            source: e,
        };
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(what)? as u32;
        let (major, minor) = ctx.compute_capability().map_err(what)?;
        let name = ctx
            .name()
            .unwrap_or_else(|e| format!("<name unavailable: {e}>"));
        Ok(Device {
            ctx,
            stream,
            _tracking: tracking,
            name,
            sms,
            cc: (major as u32, minor as u32),
            watchdog: crate::watchdog::DEFAULT_WATCHDOG,
        })
    }

    /// Another handle on this GPU (the same context, so the same memory and modules) whose
    /// helpers use a new stream of their own (`CU_STREAM_NON_BLOCKING`): kernels launched
    /// through two such handles can run at the same time, where through one handle the second
    /// would wait for the first. [`wait`](Self::wait) waits for this handle's stream only:
    /// wait on each.
    ///
    /// Kernels that wait for each other (a producer and a consumer) also need
    /// `CUDA_MODULE_LOADING=EAGER` in the environment before the process first touches CUDA.
    /// Under CUDA's default lazy loading, the first launch of a kernel can wait for the kernels
    /// already running in the context. This was seen on an H100 and an H200: the consumer
    /// started only after the producer gave up waiting for it. Loading the kernel with
    /// `cuFuncLoad` first did not prevent it. Kernels on different GPUs (different contexts)
    /// are not affected by this.
    ///
    /// It never waits for the GPU: the new stream is made without synchronizing the context.
    pub fn with_new_stream(&self) -> Result<Device> {
        self.usable()?;
        let stream = self
            .ctx
            .new_stream()
            .map_err(|e| self.driver_error("creating a stream", e))?;
        crate::watchdog::register_stream(self.ordinal(), &stream);
        Ok(Device {
            ctx: self.ctx.clone(),
            stream,
            _tracking: self._tracking.clone(),
            name: self.name.clone(),
            sms: self.sms,
            cc: self.cc,
            watchdog: self.watchdog,
        })
    }

    /// `Ok` unless this GPU is stuck ([`Error::Stuck`], at once): what every call that gives
    /// the GPU work asks first.
    pub fn usable(&self) -> Result<()> {
        crate::watchdog::check(self.ordinal())
    }

    /// The limit of the calls on this handle that wait for its stream without taking a limit
    /// of their own ([`download`](Self::download), [`upload`](Self::upload),
    /// [`Module::read_global`], [`Module::write_global`]). Past it the answer is
    /// [`Error::Timeout`], and the GPU is stuck. 60 s unless [`set_watchdog`](Self::set_watchdog)
    /// changed it. (Drops never wait: a module or pinned memory dropped while the GPU is busy is
    /// freed by the first later call that finds it idle, and never while it is stuck.)
    pub fn watchdog(&self) -> Duration {
        self.watchdog
    }

    /// Sets [`watchdog`](Self::watchdog) for this handle (`Duration::MAX`: no limit).
    pub fn set_watchdog(&mut self, limit: Duration) {
        self.watchdog = limit;
    }

    /// Wraps a driver error with what was being done.
    pub fn driver_error(&self, what: &str, source: DriverError) -> Error {
        Error::Driver {
            what: what.to_string(),
            source,
        }
    }

    /// The cudarc context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every helper here uses ([`launch_builder`](Self::launch_builder) launches on it; so may
    /// cudarc's `launch_builder`).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device name, e.g. "NVIDIA H100 80GB HBM3".
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// Number of streaming multiprocessors.
    pub fn sm_count(&self) -> u32 {
        self.sms
    }

    /// Compute capability (major, minor), e.g. (9, 0) on an H100.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.cc
    }

    pub(crate) fn attribute(&self, a: sys::CUdevice_attribute) -> Result<i32> {
        self.ctx
            .attribute(a)
            .map_err(|e| self.driver_error("reading a device attribute", e))
    }

    /// Loads a PTX file: [`Error::PtxNotFound`] if it is missing, [`Error::PtxUnreadable`] if
    /// it is not UTF-8 text (or a directory), both before touching the driver; then as
    /// [`load_ptx_str`](Self::load_ptx_str). Any path works, UTF-8 or not. The module's
    /// [name](Module::name) (what errors say) is the path.
    pub fn load_ptx(&self, path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        self.usable()?;
        let text = crate::ptx::read_ptx(path)?;
        self.load_ptx_str(&path.display().to_string(), &text)
    }

    /// Loads PTX text, e.g. embedded with `include_str!(env!("MY_KERNELS_PTX"))` (the variable
    /// `ptx_sync_build::PtxBuilder` sets in a build script). `name` is what errors call the
    /// module, e.g. "my_kernels.ptx (embedded)".
    ///
    /// ```no_run
    /// # fn main() -> Result<(), ptx_sync_host::Error> {
    /// # const PTX: &str = "";
    /// // const PTX: &str = include_str!(env!("MY_KERNELS_PTX"));
    /// let gpu = ptx_sync_host::Device::open(0)?;
    /// let kernels = gpu.load_ptx_str("my_kernels.ptx (embedded)", PTX)?;
    /// # Ok(()) }
    /// ```
    pub fn load_ptx_str(&self, name: &str, ptx: &str) -> Result<Module> {
        self.usable()?;
        let what = format!("loading {name}");
        if ptx.contains('\0') {
            // cudarc would panic making a C string of it.
            return Err(Error::Driver {
                what: format!("{what} (the PTX text contains a NUL byte)"),
                source: DriverError(sys::CUresult::CUDA_ERROR_INVALID_PTX),
            });
        }
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|e| self.driver_error(&what, e))?;
        Ok(self.module(module, name.to_string(), ptx))
    }

    /// Loads a compiled module image (a cubin or fatbin, e.g. CUDA C++ that nvcc device-linked
    /// with a library). Its kernels' parameters are not declared in text, so launches of them
    /// are not checked against the parameter list ([`Kernel::param_sizes`] is `None`). An image
    /// the driver refuses is [`Error::Driver`].
    pub fn load_cubin(&self, name: &str, image: &[u8]) -> Result<Module> {
        self.usable()?;
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(image.to_vec()))
            .map_err(|e| self.driver_error(&format!("loading {name}"), e))?;
        Ok(self.module(module, name.to_string(), ""))
    }

    fn module(&self, module: Arc<CudaModule>, name: String, ptx: &str) -> Module {
        Module {
            ptx: Arc::new(PtxText::new(ptx)),
            unload: Arc::new(Unload {
                module: ManuallyDrop::new(module.clone()),
                gpu: self.ordinal(),
            }),
            module,
            stream: self.stream.clone(),
            name: name.into(),
        }
    }

    /// `n` zeroed elements of device memory.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, n: usize) -> Result<CudaSlice<T>> {
        if n == 0 {
            return Err(Error::Empty("buffer length"));
        }
        // cudarc multiplies without checking: a wrapped size would allocate a few bytes.
        crate::error::byte_len::<T>(n, "device buffer")?;
        self.usable()?;
        self.stream
            .alloc_zeros(n)
            .map_err(|e| self.driver_error("allocating device memory", e))
    }

    /// Copies `data` to new device memory, after the work queued on the stream so far; waits
    /// at most [`watchdog`](Self::watchdog) for that work ([`upload_for`](Self::upload_for)
    /// takes the limit).
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        self.upload_for(data, self.watchdog)
    }

    /// [`upload`](Self::upload) waiting at most `limit` for the work before it: past it,
    /// [`Error::Timeout`] and the GPU is stuck.
    pub fn upload_for<T: DeviceRepr>(&self, data: &[T], limit: Duration) -> Result<CudaSlice<T>> {
        if data.is_empty() {
            return Err(Error::Empty("buffer length"));
        }
        self.usable()?;
        // A copy from pageable memory can block in the driver behind the stream's work.
        self.settle(limit, "the GPU work before an upload")?;
        self.stream
            .clone_htod(data)
            .map_err(|e| self.driver_error("copying to the GPU", e))
    }

    /// Copies device memory back, after the work queued on the stream so far; waits at most
    /// [`watchdog`](Self::watchdog) for that work ([`download_for`](Self::download_for) takes
    /// the limit).
    pub fn download<T: DeviceRepr>(&self, data: &CudaSlice<T>) -> Result<Vec<T>> {
        self.download_for(data, self.watchdog)
    }

    /// [`download`](Self::download) waiting at most `limit` for the work before it: past it,
    /// [`Error::Timeout`] and the GPU is stuck.
    pub fn download_for<T: DeviceRepr>(
        &self,
        data: &CudaSlice<T>,
        limit: Duration,
    ) -> Result<Vec<T>> {
        self.usable()?;
        // A copy into pageable memory blocks in the driver until the stream reaches it, so the
        // stream is waited for first, with a limit.
        self.settle(limit, "the GPU work before a download")?;
        self.stream
            .clone_dtoh(data)
            .map_err(|e| self.driver_error("copying from the GPU", e))
    }

    /// Waits until everything launched on the stream has finished, polling instead of blocking
    /// so that a kernel that never finishes becomes [`Error::Timeout`] after `limit`
    /// (`Duration::MAX`: no limit; zero: asks once). A kernel that trapped or faulted is
    /// reported as a driver error. After a Timeout the GPU is stuck ([`Error::Stuck`] from every
    /// other call); `wait` may still be called again, and once the work ends the GPU is usable.
    pub fn wait(&self, limit: Duration) -> Result<()> {
        self.settle(limit, "the GPU work")
    }

    /// [`wait`](Self::wait) for the work on this handle's stream, saying `what` it was.
    pub(crate) fn settle(&self, limit: Duration, what: &str) -> Result<()> {
        let _ = crate::watchdog::check(self.ordinal()); // runs frees that were waiting
        crate::watchdog::settle(
            self.ordinal(),
            std::slice::from_ref(&self.stream),
            limit,
            what,
        )
        .map_err(|e| match e {
            Error::Driver { source, .. } => self.driver_error("kernel execution", source),
            e => e,
        })
    }
}

/// A loaded PTX module: its kernels ([`kernel`](Self::kernel)) and its global variables (the
/// kernel crate's `#[unsafe(no_mangle)]` statics: [`read_global`](Self::read_global),
/// [`write_global`](Self::write_global), [`global_ptr`](Self::global_ptr)).
pub struct Module {
    module: Arc<CudaModule>,
    /// The stream of the GPU that loaded it (its context is the module's).
    stream: Arc<CudaStream>,
    name: Arc<str>,
    /// The text it was loaded from: its kernels' parameter sizes ([`Kernel::param_sizes`]).
    ptx: Arc<PtxText>,
    /// Declared last, so dropped after `module`.
    unload: Arc<Unload>,
}

/// Unloads a module when its last [`Module`] or [`Kernel`] is dropped, without waiting:
/// `cuModuleUnload` waits for every kernel running in the context, so on a busy GPU the unload
/// is left for the first later call that finds the GPU idle (never, while it is stuck).
struct Unload {
    module: ManuallyDrop<Arc<CudaModule>>,
    gpu: usize,
}

impl Drop for Unload {
    fn drop(&mut self) {
        // SAFETY: taken once, here; the field is not used after.
        let module = unsafe { ManuallyDrop::take(&mut self.module) };
        if Arc::strong_count(&module) == 1 {
            crate::watchdog::free_when_idle(Some(self.gpu), Box::new(move || drop(module)));
        }
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.name)
            .field("gpu", &self.stream.context().ordinal())
            .finish()
    }
}

impl Module {
    /// What errors call the module: the PTX file's path, or the name given to
    /// [`Device::load_ptx_str`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The cudarc module.
    pub fn cuda_module(&self) -> &Arc<CudaModule> {
        &self.module
    }

    /// The kernel called `name`, or [`Error::KernelNotFound`] (also for a name no kernel can
    /// have: empty, or holding a NUL byte).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let not_found = || Error::KernelNotFound {
            module: self.name.to_string(),
            name: name.to_string(),
        };
        // Before the driver: cudarc panics making a C string of a name with a NUL byte, and the
        // driver answers an empty name with CUDA_ERROR_INVALID_VALUE.
        if crate::error::bad_name(name).is_some() {
            return Err(not_found());
        }
        match self.module.load_function(name) {
            Ok(function) => Ok(Kernel {
                function,
                name: name.to_string(),
                module: self.name.clone(),
                ptx: self.ptx.clone(),
                _unload: self.unload.clone(),
            }),
            // INVALID_VALUE is how the driver refuses some names it has no kernel of; the module
            // handle itself is valid as long as `self`.
            Err(DriverError(
                sys::CUresult::CUDA_ERROR_NOT_FOUND | sys::CUresult::CUDA_ERROR_INVALID_VALUE,
            )) => Err(not_found()),
            Err(source) => Err(Error::Driver {
                what: format!("looking up kernel `{name}` in {}", self.name),
                source,
            }),
        }
    }

    /// The device address and size in bytes of the global variable `name`, or
    /// [`Error::GlobalNotFound`].
    fn global(&self, name: &str) -> Result<(u64, usize)> {
        let what = || format!("looking up global `{name}` in {}", self.name);
        let not_found = || Error::GlobalNotFound {
            module: self.name.to_string(),
            name: name.to_string(),
        };
        // Before the driver, as for kernels: no global has such a name.
        if crate::error::bad_name(name).is_some() {
            return Err(not_found());
        }
        self.stream
            .context()
            .bind_to_thread()
            .map_err(|source| Error::Driver {
                what: what(),
                source,
            })?;
        match self.module.get_global(name, &self.stream) {
            Ok(view) => {
                let (ptr, _guard) = view.device_ptr(&self.stream);
                Ok((ptr, view.len()))
            }
            // The driver answers the name of a kernel (a symbol, but not a variable) with
            // INVALID_VALUE rather than NOT_FOUND.
            Err(DriverError(
                sys::CUresult::CUDA_ERROR_NOT_FOUND | sys::CUresult::CUDA_ERROR_INVALID_VALUE,
            )) => Err(not_found()),
            Err(source) => Err(Error::Driver {
                what: what(),
                source,
            }),
        }
    }

    /// The device address of the global variable `name` (a kernel crate's
    /// `#[unsafe(no_mangle)] static`, which rustc emits as `.visible .global`), for a kernel
    /// argument or a raw copy; [`Error::GlobalNotFound`] if the module has none.
    pub fn global_ptr(&self, name: &str) -> Result<u64> {
        self.global(name).map(|(ptr, _)| ptr)
    }

    /// The size in bytes of the global variable `name`; [`Error::GlobalNotFound`] if the
    /// module has none.
    pub fn global_size(&self, name: &str) -> Result<usize> {
        self.global(name).map(|(_, size)| size)
    }

    /// The global variable `name` after checking that it exists ([`Error::GlobalNotFound`]),
    /// that its size is `size_of::<T>()` ([`Error::GlobalSize`]) and that `gpu` is the one that
    /// loaded the module.
    fn typed_global<T>(&self, gpu: &Device, name: &str, what: &str) -> Result<u64> {
        if gpu.context().cu_ctx() != self.stream.context().cu_ctx() {
            return Err(Error::Driver {
                what: format!(
                    "{what} global `{name}` of {} through another GPU than the one that loaded it",
                    self.name
                ),
                source: DriverError(sys::CUresult::CUDA_ERROR_INVALID_CONTEXT),
            });
        }
        let (ptr, found) = self.global(name)?;
        let expected = std::mem::size_of::<T>();
        if found != expected {
            return Err(Error::GlobalSize {
                name: name.to_string(),
                expected,
                found,
            });
        }
        Ok(ptr)
    }

    /// Reads the global variable `name` as a `T` (an `Atomic<u32, _>` static reads as a
    /// `u32`): [`Error::GlobalNotFound`] if the module has none, [`Error::GlobalSize`] if its
    /// size is not `size_of::<T>()`. The copy is ordered after the work already launched on
    /// `gpu`'s stream, which is waited for at most [`Device::watchdog`] ([`Error::Timeout`]
    /// past it).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), ptx_sync_host::Error> {
    /// // Kernel crate: #[unsafe(no_mangle)] static COUNTER: Atomic<u32, Gpu> = Atomic::new(0);
    /// let gpu = ptx_sync_host::Device::open(0)?;
    /// let module = gpu.load_ptx("ptx/my_kernels.ptx")?;
    /// module.write_global(&gpu, "COUNTER", &0u32)?;
    /// // ... launch kernels that count ...
    /// gpu.wait(std::time::Duration::from_secs(10))?;
    /// let count: u32 = module.read_global(&gpu, "COUNTER")?;
    /// # Ok(()) }
    /// ```
    pub fn read_global<T: DeviceRepr + Default>(&self, gpu: &Device, name: &str) -> Result<T> {
        let ptr = self.typed_global::<T>(gpu, name, "reading")?;
        gpu.usable()?;
        // The copy into `value` blocks in the driver until the stream reaches it: wait first.
        gpu.settle(
            gpu.watchdog,
            &format!("the GPU work before reading global `{name}`"),
        )?;
        let mut value = T::default();
        let what = || format!("reading global `{name}` of {}", self.name);
        let stream = gpu.stream();
        // SAFETY: `ptr` holds `size_of::<T>()` bytes of the module's memory (checked), `value`
        // is as large; the stream is synchronized before `value` is used.
        unsafe {
            cudarc::driver::result::memcpy_dtoh_async(
                std::slice::from_mut(&mut value),
                ptr,
                stream.cu_stream(),
            )
        }
        .and_then(|()| stream.synchronize())
        .map_err(|source| Error::Driver {
            what: what(),
            source,
        })?;
        Ok(value)
    }

    /// Writes `value` to the global variable `name` (a `u32` into an `Atomic<u32, _>`
    /// static): [`Error::GlobalNotFound`] if the module has none, [`Error::GlobalSize`] if its
    /// size is not `size_of::<T>()`. Ordered after the work already launched on `gpu`'s
    /// stream (waited for at most [`Device::watchdog`]) and before any launched later; returns
    /// once the copy is done.
    pub fn write_global<T: DeviceRepr>(&self, gpu: &Device, name: &str, value: &T) -> Result<()> {
        let ptr = self.typed_global::<T>(gpu, name, "writing")?;
        gpu.usable()?;
        gpu.settle(
            gpu.watchdog,
            &format!("the GPU work before writing global `{name}`"),
        )?;
        let stream = gpu.stream();
        // SAFETY: `ptr` holds `size_of::<T>()` bytes of the module's memory (checked); `value`
        // outlives the copy (the stream is synchronized before returning).
        unsafe {
            cudarc::driver::result::memcpy_htod_async(
                ptr,
                std::slice::from_ref(value),
                stream.cu_stream(),
            )
        }
        .and_then(|()| stream.synchronize())
        .map_err(|source| Error::Driver {
            what: format!("writing global `{name}` of {}", self.name),
            source,
        })
    }
}

/// A kernel of a loaded module.
#[derive(Clone)]
pub struct Kernel {
    function: CudaFunction,
    name: String,
    module: Arc<str>,
    /// Its module's text, which declares its parameters.
    ptx: Arc<PtxText>,
    /// Declared after `function`, which holds the module too (see [`Unload`]); only kept.
    _unload: Arc<Unload>,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("module", &self.module)
            .finish()
    }
}

impl Kernel {
    /// The cudarc function, for `stream.launch_builder(kernel.function())`.
    pub fn function(&self) -> &CudaFunction {
        &self.function
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name of the module it is in ([`Module::name`]).
    pub fn module_name(&self) -> &str {
        &self.module
    }

    /// The size in bytes of each of the kernel's parameters, as its `.entry` declaration in the
    /// module's PTX gives them (`Some(&[])` for a kernel without parameters); `None` where the
    /// declaration is one this crate cannot read for certain (an unknown parameter type, say).
    /// [`Launch`](crate::Launch) checks its arguments against them. Reading the text makes no
    /// driver call (asking the driver, `cuFuncGetParamInfo`, would mean a failing call past
    /// the last parameter, which compute-sanitizer reports).
    pub fn param_sizes(&self) -> Option<&[usize]> {
        self.ptx.param_sizes(&self.name)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Why there is no driver, if there is none (the only error `driver_available` returns).
    pub(crate) fn no_driver_reason() -> Option<String> {
        match driver_available() {
            Ok(()) => None,
            Err(Error::NoDriver(why)) => Some(why),
            Err(e) => panic!("driver_available: expected NoDriver, got {e}"),
        }
    }

    #[test]
    fn driver_check_never_panics() {
        // Whatever the machine: an answer, not a panic.
        let _ = std::panic::catch_unwind(driver_available).expect("driver_available panicked");
    }

    /// Whatever the machine, a way in that cannot work is an `Err` that names the problem, not
    /// a panic: without a driver, every ordinal is `NoDriver` with the driver check's reason;
    /// with one, a GPU that does not exist, a missing PTX file and a file that is not PTX are
    /// errors naming the ordinal or the file.
    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        if let Some(why) = no_driver_reason() {
            assert!(
                why.starts_with("libcuda.so could not be loaded")
                    || why.contains("is not a usable NVIDIA driver")
                    || why.starts_with("cuInit failed"),
                "{why}"
            );
            for ordinal in [0, 4096] {
                match Device::open(ordinal) {
                    Err(Error::NoDriver(reason)) => {
                        assert_eq!(reason, why);
                        assert_eq!(
                            Error::NoDriver(reason).to_string(),
                            format!("no CUDA driver: {why}")
                        );
                    }
                    Err(e) => panic!("GPU {ordinal}: expected NoDriver, got {e}"),
                    Ok(_) => panic!("opened GPU {ordinal} without a driver"),
                }
            }
            return;
        }
        let count = Device::count().expect("a driver that cannot count its GPUs");
        // 1 << 32 is GPU 0 to a driver that takes the ordinal as an i32.
        for ordinal in [4096, 1 << 32, usize::MAX] {
            match Device::open(ordinal) {
                Err(Error::NoSuchGpu {
                    ordinal: o,
                    count: c,
                }) => {
                    assert_eq!((o, c), (ordinal, count))
                }
                Err(e) => panic!("GPU {ordinal}: expected NoSuchGpu, got {e}"),
                Ok(_) => panic!("opened a GPU {ordinal}"),
            }
        }
        let gpu = Device::open(0).expect("a driver but no GPU 0");
        let missing = Path::new("/nonexistent/ptx_sync_test_kernels.ptx");
        match gpu.load_ptx(missing) {
            Err(Error::PtxNotFound(p)) => assert_eq!(p, missing),
            Err(e) => panic!("expected PtxNotFound, got {e}"),
            Ok(_) => panic!("loaded a missing file"),
        }
        let not_ptx =
            std::env::temp_dir().join(format!("ptx-sync-not-ptx-{}.ptx", std::process::id()));
        std::fs::write(&not_ptx, "this is not PTX\n").unwrap();
        let loaded = gpu.load_ptx(&not_ptx);
        let _ = std::fs::remove_file(&not_ptx);
        match loaded {
            Err(e @ Error::Driver { .. }) => {
                let want = format!("loading {}: CUDA_ERROR_", not_ptx.display());
                assert!(e.to_string().starts_with(&want), "{e}");
            }
            Err(e) => panic!("expected a driver error, got {e}"),
            Ok(_) => panic!("loaded a file that is not PTX"),
        }
        // Text that is not PTX, or that holds a NUL byte: errors naming the module.
        for (text, want) in [
            ("this is not PTX\n", "loading bad.ptx (embedded): CUDA_ERROR_"),
            (
                "not\0PTX",
                "loading bad.ptx (embedded) (the PTX text contains a NUL byte): CUDA_ERROR_INVALID_PTX",
            ),
        ] {
            match gpu.load_ptx_str("bad.ptx (embedded)", text) {
                Err(e @ Error::Driver { .. }) => {
                    assert!(e.to_string().starts_with(want), "{e}")
                }
                Err(e) => panic!("expected a driver error, got {e}"),
                Ok(_) => panic!("loaded text that is not PTX"),
            }
        }
    }

    #[test]
    fn missing_ptx_is_reported_before_the_driver() {
        let path = Path::new("/nonexistent/ptx_sync_test_kernels.ptx");
        let e = crate::ptx::read_ptx(path).unwrap_err();
        assert!(matches!(&e, Error::PtxNotFound(p) if p == path));
        let msg = e.to_string();
        assert!(
            msg.contains("/nonexistent/ptx_sync_test_kernels.ptx"),
            "{msg}"
        );
        assert!(msg.contains("cargo xtask build-ptx"), "{msg}");
        // A directory is not a PTX file either.
        assert!(matches!(
            crate::ptx::read_ptx(&std::env::temp_dir()),
            Err(Error::PtxUnreadable { .. })
        ));
    }
}
