//! One launch path for every kind of launch: the [`Launch`] builder and the
//! [`launch!`](crate::launch!) macro (their docs say what they take).

use crate::error::counted;
use crate::{ClusterConfig, ClusterLimit, CoopLimit, Device, Error, Kernel, MappedBuffer, Result};
use cudarc::driver::{
    sys, CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig,
    PushKernelArg, SyncOnDrop,
};
use std::any::Any;
use std::ffi::c_void;
use std::fmt;

/// Dynamic shared memory beyond this needs the kernel's
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` raised (opt-in, sm_70+).
const DEFAULT_DYNAMIC_SHARED: u32 = 48 * 1024;

/// Launch dimensions, from a `u32` (`(n, 1, 1)`), a `(u32, u32)` or a `(u32, u32, u32)`: what
/// [`launch_config`] and [`launch!`](crate::launch!) take for the grid and the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Along x.
    pub x: u32,
    /// Along y.
    pub y: u32,
    /// Along z.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`, as cudarc's [`LaunchConfig`] holds it.
    pub fn tuple(self) -> (u32, u32, u32) {
        (self.x, self.y, self.z)
    }

    /// `x * y * z` (saturating).
    pub fn count(self) -> u32 {
        self.x.saturating_mul(self.y).saturating_mul(self.z)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3 { x, y: 1, z: 1 }
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3 { x, y, z: 1 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3 { x, y, z }
    }
}

impl From<Dim3> for (u32, u32, u32) {
    fn from(d: Dim3) -> (u32, u32, u32) {
        d.tuple()
    }
}

/// A [`LaunchConfig`] of `grid` blocks of `block` threads with `shared_mem_bytes` of dynamic
/// shared memory per block; `grid` and `block` are a `u32` or a tuple ([`Dim3`]).
///
/// ```
/// let cfg = ptx_sync_host::launch_config(4, (32, 8), 0);
/// assert_eq!((cfg.grid_dim, cfg.block_dim), ((4, 1, 1), (32, 8, 1)));
/// ```
pub fn launch_config(
    grid: impl Into<Dim3>,
    block: impl Into<Dim3>,
    shared_mem_bytes: u32,
) -> LaunchConfig {
    LaunchConfig {
        grid_dim: grid.into().tuple(),
        block_dim: block.into().tuple(),
        shared_mem_bytes,
    }
}

/// "grid (4, 1, 1) x block (256, 1, 1), 0 bytes of dynamic shared memory".
fn geometry(cfg: &LaunchConfig) -> String {
    let (g, b) = (cfg.grid_dim, cfg.block_dim);
    format!(
        "grid ({}, {}, {}) x block ({}, {}, {}), {} of dynamic shared memory",
        g.0,
        g.1,
        g.2,
        b.0,
        b.1,
        b.2,
        counted(cfg.shared_mem_bytes as u128, "byte")
    )
}

fn count((x, y, z): (u32, u32, u32)) -> u32 {
    x.saturating_mul(y).saturating_mul(z)
}

/// A zero anywhere in the grid or the block.
fn check_nonzero(cfg: &LaunchConfig) -> Result<()> {
    if count(cfg.grid_dim) == 0 {
        return Err(Error::Empty("grid dimension"));
    }
    if count(cfg.block_dim) == 0 {
        return Err(Error::Empty("block dimension"));
    }
    Ok(())
}

/// Why `given` argument sizes do not fit `params` parameter sizes, if they do not.
pub(crate) fn argument_mismatch(given: &[usize], params: &[usize]) -> Option<String> {
    // "1 byte", "8 bytes", "8, 4 bytes".
    let sizes = |sizes: &[usize]| match sizes {
        [one] => counted(*one as u128, "byte"),
        _ => format!(
            "{} bytes",
            sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    if given.len() != params.len() {
        let given = match given {
            [] => "none given".to_string(),
            _ => format!("{} given ({})", given.len(), sizes(given)),
        };
        let takes = match params {
            [] => "none".to_string(),
            _ => format!("{} ({})", params.len(), sizes(params)),
        };
        return Some(format!("{given}, but the kernel takes {takes}"));
    }
    let (i, (g, p)) = given
        .iter()
        .zip(params)
        .enumerate()
        .find(|(_, (g, p))| g != p)?;
    Some(format!(
        "argument {i} (counting from 0) is {g} bytes, but the parameter is {p} bytes \
         (an integer literal without a suffix is an i32: write 5u64)"
    ))
}

/// Which launch, for the attribute list and the error messages.
#[derive(Clone, Copy)]
enum Kind {
    Plain,
    Cooperative,
    Cluster((u32, u32, u32)),
}

/// A kernel launch being built ([`Device::launch_builder`]): push the arguments in the kernel's
/// parameter order with [`arg`](PushKernelArg::arg), then launch on [`Device::stream`] with
/// `cuLaunchKernelEx`, plainly ([`launch`](Self::launch)), cooperatively
/// ([`launch_cooperative`](Self::launch_cooperative), checked against the occupancy limit
/// first) or in thread-block clusters ([`launch_cluster`](Self::launch_cluster), sm_90+). The
/// builder may launch again with the same arguments. The [`launch!`](crate::launch!) macro
/// does all of this in one line, in cust's familiar `kernel<<<grid, block, shared, gpu>>>(args)`
/// form. (cudarc 0.19's own `LaunchArgs` has no cluster launch.)
///
/// Arguments go through cudarc's [`PushKernelArg`] (import it to call `arg`): scalars by value
/// (`u8`..`u64`, `i8`..`i64`, `usize`, `isize`, `f32`, `f64`, `bool`; the builder keeps a copy)
/// or by reference; device slices and views (`&CudaSlice<T>`, `&mut CudaSlice<T>`,
/// `&CudaView<T>`, `&mut CudaViewMut<T>`: their device address, ordered on the stream as
/// cudarc's own builder does); mapped buffers (`&MappedBuffer<W>`: its device address).
/// [`arg_ref`](Self::arg_ref) takes any other [`DeviceRepr`] (a `#[repr(C)]` struct) by
/// reference.
///
/// Where the module's PTX declares them ([`Kernel::param_sizes`]), the arguments are checked
/// against the kernel's parameters, in number and in size, before launching: a missing
/// argument, or an unsuffixed integer literal (an `i32`) given for a `u64` parameter, is
/// [`Error::BadArguments`] instead of a kernel reading garbage.
///
/// ```no_run
/// use ptx_sync_host::{cudarc::driver::PushKernelArg, launch_config, ClusterConfig, Device};
/// # fn main() -> Result<(), ptx_sync_host::Error> {
/// let gpu = Device::open(0)?;
/// let kernels = gpu.load_ptx("ptx/my_kernels.ptx")?;
/// let out = gpu.zeros::<u32>(1024)?;
/// // Plain: fill(out: *mut u32, n: u32), 4 blocks of 256 threads, no dynamic shared memory.
/// let fill = kernels.kernel("fill")?;
/// let mut launch = gpu.launch_builder(&fill);
/// launch.arg(&out).arg(1024u32);
/// unsafe { launch.launch(launch_config(4, 256, 0)) }?;
/// // Cooperative: refused with Error::GridTooLarge if the grid cannot be resident at once.
/// let grid_sync = kernels.kernel("grid_sync")?;
/// let limit = unsafe { gpu.launch_builder(&grid_sync).arg(&out).launch_cooperative(launch_config(132, 128, 0)) }?;
/// assert!(limit.max_blocks >= 132);
/// // Clusters (sm_90): 16 clusters of 4 blocks of 128 threads, 1 KiB of shared memory each.
/// let in_clusters = kernels.kernel("in_clusters")?;
/// let cfg = ClusterConfig::linear(16, 4, 128, 1024);
/// unsafe { gpu.launch_builder(&in_clusters).arg(&out).arg(100u32).launch_cluster(cfg) }?;
/// gpu.wait(std::time::Duration::from_secs(10))?;
/// # Ok(()) }
/// ```
pub struct Launch<'a> {
    gpu: &'a Device,
    kernel: &'a Kernel,
    /// One pointer per argument, to its value (the driver copies the values at launch).
    args: Vec<*mut c_void>,
    /// The size of each argument's value, checked against the kernel's parameters.
    sizes: Vec<usize>,
    /// Values passed by value and device addresses, boxed so that `args` can point at them
    /// (a growing `Vec` moves its elements, a `Box`'s contents stay put).
    owned: Vec<Box<dyn Any>>,
    /// cudarc's stream-ordering guards for the slices, dropped after the launch (they record
    /// the slices' read/write events on the stream, as cudarc's own builder does).
    guards: Vec<SyncOnDrop<'a>>,
}

impl fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel.name())
            .field("module", &self.kernel.module_name())
            .field("gpu", &self.gpu.name())
            .field("argument_bytes", &self.sizes)
            .finish()
    }
}

impl Device {
    /// A launch builder for `kernel` on [`stream`](Self::stream): it launches nothing until
    /// one of [`Launch::launch`], [`launch_cooperative`](Launch::launch_cooperative) or
    /// [`launch_cluster`](Launch::launch_cluster) is called; see [`Launch`] and
    /// [`launch!`](crate::launch!), which does both steps.
    pub fn launch_builder<'a>(&'a self, kernel: &'a Kernel) -> Launch<'a> {
        Launch {
            gpu: self,
            kernel,
            args: Vec::new(),
            sizes: Vec::new(),
            owned: Vec::new(),
            guards: Vec::new(),
        }
    }
}

impl<'a> Launch<'a> {
    /// The kernel being launched.
    pub fn kernel(&self) -> &'a Kernel {
        self.kernel
    }

    /// How many arguments have been pushed.
    pub fn arg_count(&self) -> usize {
        self.args.len()
    }

    /// Pushes any [`DeviceRepr`] value by reference (a `#[repr(C)]` struct the kernel takes by
    /// value, say), for the types [`PushKernelArg`] has no impl for.
    pub fn arg_ref<T: DeviceRepr>(&mut self, arg: &'a T) -> &mut Self {
        self.args.push(arg as *const T as *mut c_void);
        self.sizes.push(std::mem::size_of::<T>());
        self
    }

    /// Keeps a copy of `value` and pushes its address.
    fn push_owned<T: Copy + 'static>(&mut self, value: T) {
        let boxed = Box::new(value);
        self.args.push(&*boxed as *const T as *mut c_void);
        self.sizes.push(std::mem::size_of::<T>());
        // Unsizing to `Box<dyn Any>` keeps the allocation where it is.
        self.owned.push(boxed);
    }

    /// Checks the arguments against the kernel's parameters where its PTX declares them.
    fn check_arguments(&self) -> Result<()> {
        match self.kernel.param_sizes() {
            Some(params) => match argument_mismatch(&self.sizes, params) {
                Some(why) => Err(Error::BadArguments {
                    kernel: self.kernel.name().to_string(),
                    why,
                }),
                None => Ok(()),
            },
            None => Ok(()),
        }
    }

    /// Raises the kernel's dynamic shared memory limit where `bytes` needs it.
    fn allow_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= DEFAULT_DYNAMIC_SHARED {
            return Ok(());
        }
        let what = || {
            format!(
                "allowing {bytes} bytes of dynamic shared memory for `{}`",
                self.kernel.name()
            )
        };
        // The attribute is an i32: past i32::MAX the value would wrap to a negative one. It is
        // far beyond any GPU's shared memory, which the driver refuses with INVALID_VALUE.
        let Ok(value) = i32::try_from(bytes) else {
            return Err(Error::Driver {
                what: format!("{} (more than i32::MAX bytes)", what()),
                source: cudarc::driver::DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE),
            });
        };
        self.kernel
            .function()
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                value,
            )
            .map_err(|e| self.gpu.driver_error(&what(), e))
    }

    /// Launches `cfg` with `cuLaunchKernelEx` and the attributes of `kind`.
    ///
    /// # Safety
    /// As [`launch`](Self::launch).
    unsafe fn launch_ex(&mut self, kind: Kind, cfg: &LaunchConfig) -> Result<()> {
        let gpu = self.gpu;
        gpu.usable()?;
        gpu.context()
            .bind_to_thread()
            .map_err(|e| gpu.driver_error("binding the context", e))?;
        self.check_arguments()?;
        // SAFETY: an all-zero attribute is a valid plain-data value (an id and a union of
        // integers).
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        let what = match kind {
            Kind::Plain => "launch",
            Kind::Cooperative => {
                attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
                attr.value.cooperative = 1;
                "cooperative launch"
            }
            Kind::Cluster((x, y, z)) => {
                attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
                attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x, y, z };
                "cluster launch"
            }
        };
        let num_attrs = if matches!(kind, Kind::Plain) { 0 } else { 1 };
        let raw = raw_config(cfg, gpu.stream().cu_stream(), &mut attr, num_attrs);
        // SAFETY: `raw`, `attr` and every argument outlive the call (the driver copies the
        // parameters before returning); the argument types are the caller's contract.
        unsafe {
            sys::cuLaunchKernelEx(
                &raw,
                self.kernel.function().cu_function(),
                self.args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| {
            let shape = match kind {
                Kind::Cluster((x, y, z)) => format!(", clusters of ({x}, {y}, {z})"),
                _ => String::new(),
            };
            gpu.driver_error(
                &format!(
                    "{what} of `{}` ({}{shape})",
                    self.kernel.name(),
                    geometry(cfg)
                ),
                e,
            )
        })?;
        self.guards.clear();
        Ok(())
    }

    /// Launches `cfg` (a plain launch); [`Error::Empty`] for a zero grid or block dimension,
    /// [`Error::BadArguments`] where the arguments do not fit the parameters the PTX declares.
    /// Dynamic shared memory above 48 KiB is allowed for the kernel first.
    ///
    /// # Safety
    /// As cudarc's `LaunchArgs::launch`: the arguments must match the kernel's parameters in
    /// number, order and type, and the kernel must stay within the memory it is given.
    pub unsafe fn launch(&mut self, cfg: LaunchConfig) -> Result<()> {
        check_nonzero(&cfg)?;
        self.allow_shared(cfg.shared_mem_bytes)?;
        // SAFETY: the caller's contract.
        unsafe { self.launch_ex(Kind::Plain, &cfg) }
    }

    /// A cooperative launch (`CU_LAUNCH_ATTRIBUTE_COOPERATIVE`): every block resident at once,
    /// so blocks may wait on each other (`ptx_sync::GridBarrier`). Checks the grid first
    /// ([`Device::check_cooperative`]): one that cannot be resident at once is
    /// [`Error::GridTooLarge`], not a launch that hangs. Returns the limit it was checked
    /// against.
    ///
    /// # Safety
    /// As [`launch`](Self::launch).
    pub unsafe fn launch_cooperative(&mut self, cfg: LaunchConfig) -> Result<CoopLimit> {
        check_nonzero(&cfg)?;
        self.allow_shared(cfg.shared_mem_bytes)?;
        let limit = self.gpu.check_cooperative(
            self.kernel,
            count(cfg.grid_dim),
            count(cfg.block_dim),
            cfg.shared_mem_bytes,
        )?;
        // SAFETY: the caller's contract.
        unsafe { self.launch_ex(Kind::Cooperative, &cfg) }?;
        Ok(limit)
    }

    /// A launch in thread-block clusters (sm_90+, `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`).
    /// Checks `cfg` first ([`Device::check_cluster`]): an older GPU is [`Error::NoClusters`], an
    /// impossible shape or cluster size [`Error::BadCluster`] saying why. Returns the limits it
    /// was checked against.
    ///
    /// # Safety
    /// As [`launch`](Self::launch).
    pub unsafe fn launch_cluster(&mut self, cfg: ClusterConfig) -> Result<ClusterLimit> {
        self.allow_shared(cfg.shared_mem_bytes)?;
        let limit = self.gpu.check_cluster(self.kernel, &cfg)?;
        // SAFETY: the caller's contract.
        unsafe { self.launch_ex(Kind::Cluster(cfg.cluster_dim), &cfg.launch_config()) }?;
        Ok(limit)
    }
}

/// The driver's launch configuration for `cfg` on `stream` with the first `num_attrs` (0 or 1)
/// of `attr`.
pub(crate) fn raw_config(
    cfg: &LaunchConfig,
    stream: sys::CUstream,
    attr: &mut sys::CUlaunchAttribute,
    num_attrs: u32,
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: cfg.grid_dim.0,
        gridDimY: cfg.grid_dim.1,
        gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0,
        blockDimY: cfg.block_dim.1,
        blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: stream,
        attrs: if num_attrs == 0 {
            std::ptr::null_mut()
        } else {
            attr
        },
        numAttrs: num_attrs,
    }
}

// SAFETY (every impl below): a pushed pointer stays valid as long as the launch builder, which
// cannot outlive the borrowed argument ('b: 'a), or points into the builder's own boxes.
//
// Values: the plain types a kernel takes by value, listed one by one (a blanket impl over
// `DeviceRepr` would overlap the slice impls under Rust's coherence rules; `arg_ref` takes the
// others).
macro_rules! value_args {
    ($($t:ty),*) => {$(
        /// By reference: the builder points at the caller's value.
        unsafe impl<'a, 'b: 'a> PushKernelArg<&'b $t> for Launch<'a> {
            fn arg(&mut self, arg: &'b $t) -> &mut Self {
                self.args.push(arg as *const $t as *mut c_void);
                self.sizes.push(std::mem::size_of::<$t>());
                self
            }
        }

        /// By value: the builder keeps a copy.
        unsafe impl<'a> PushKernelArg<$t> for Launch<'a> {
            fn arg(&mut self, arg: $t) -> &mut Self {
                self.push_owned(arg);
                self
            }
        }
    )*};
}
value_args!(bool, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

/// A [`MappedBuffer`] passes its device address.
unsafe impl<'a, 'b: 'a, W: crate::MappedWord> PushKernelArg<&'b MappedBuffer<W>> for Launch<'a> {
    fn arg(&mut self, arg: &'b MappedBuffer<W>) -> &mut Self {
        self.push_owned::<sys::CUdeviceptr>(arg.device_ptr());
        self
    }
}

/// A device slice passes its device address; the launch waits for its pending writes.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b CudaSlice<T>> for Launch<'a> {
    fn arg(&mut self, arg: &'b CudaSlice<T>) -> &mut Self {
        let (ptr, guard) = arg.device_ptr(self.gpu.stream());
        self.push_owned(ptr);
        self.guards.push(guard);
        self
    }
}

/// A device slice passes its device address; the launch waits for its pending reads and
/// writes.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut CudaSlice<T>> for Launch<'a> {
    fn arg(&mut self, arg: &'b mut CudaSlice<T>) -> &mut Self {
        let (ptr, guard) = arg.device_ptr_mut(self.gpu.stream());
        self.push_owned(ptr);
        self.guards.push(guard);
        self
    }
}

/// A view passes its device address (the start of the view).
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b CudaView<'c, T>> for Launch<'a> {
    fn arg(&mut self, arg: &'b CudaView<'c, T>) -> &mut Self {
        let (ptr, guard) = arg.device_ptr(self.gpu.stream());
        self.push_owned(ptr);
        self.guards.push(guard);
        self
    }
}

/// A mutable view passes its device address (the start of the view).
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b mut CudaViewMut<'c, T>> for Launch<'a> {
    fn arg(&mut self, arg: &'b mut CudaViewMut<'c, T>) -> &mut Self {
        let (ptr, guard) = arg.device_ptr_mut(self.gpu.stream());
        self.push_owned(ptr);
        self.guards.push(guard);
        self
    }
}

/// Launches a kernel in cust's familiar form; expands to the `unsafe` launch call, so write
/// `unsafe { launch!(...) }?` (the macro's value is the launch method's `Result`).
///
/// - `launch!(kernel<<<grid, block, shared_mem_bytes, gpu>>>(args...))`: a plain launch of a
///   [`Kernel`](crate::Kernel) ([`Launch::launch`](crate::Launch::launch)); `Result<()>`.
/// - `launch!(module.kernel_name<<<grid, block, shared_mem_bytes, gpu>>>(args...))`: looks the
///   kernel up by name in a [`Module`](crate::Module) first (an
///   [`Error::KernelNotFound`](crate::Error::KernelNotFound) is the macro's `Err`).
/// - `launch!(cooperative kernel<<<grid, block, shared_mem_bytes, gpu>>>(args...))` (or
///   `module.name`): [`Launch::launch_cooperative`](crate::Launch::launch_cooperative);
///   `Result<CoopLimit>`.
/// - `launch!(cluster kernel<<<cluster_config, gpu>>>(args...))` (or `module.name`):
///   [`Launch::launch_cluster`](crate::Launch::launch_cluster) with a
///   [`ClusterConfig`](crate::ClusterConfig); `Result<ClusterLimit>`.
///
/// `grid` and `block` are a `u32` or a tuple ([`Dim3`](crate::Dim3)); `gpu` is a
/// [`Device`](crate::Device) (or `&Device`) named by an identifier or a field path (`ctx.gpu`); each
/// argument is anything [`Launch`](crate::Launch) takes: `&buffer`, `&value`, or a scalar by
/// value (suffix integer literals: `5u64`, or the driver check refuses an `i32` for a `u64`).
///
/// ```no_run
/// use ptx_sync_host::{launch, ClusterConfig, Device};
/// # fn main() -> Result<(), ptx_sync_host::Error> {
/// let gpu = Device::open(0)?;
/// let module = gpu.load_ptx("ptx/my_kernels.ptx")?;
/// let (out, n) = (gpu.zeros::<u32>(1000)?, 1000u32);
/// // Plain, by name: smoke_iota(out: *mut u32, n: u32); `out` by reference, `n` by value.
/// unsafe { launch!(module.smoke_iota<<<(n + 255) / 256, 256, 0, gpu>>>(&out, n)) }?;
/// // Plain, a Kernel, 3-D dimensions.
/// let kernel = module.kernel("smoke_iota")?;
/// unsafe { launch!(kernel<<<(4, 1, 1), (256, 1, 1), 0, gpu>>>(&out, &n)) }?;
/// // Cooperative: refused with Error::GridTooLarge if the grid cannot be resident at once.
/// let grid_sync = module.kernel("grid_sync")?;
/// let limit = unsafe { launch!(cooperative grid_sync<<<132, 128, 0, gpu>>>(&out, n)) }?;
/// assert!(limit.max_blocks >= 132);
/// // Clusters (sm_90): 16 clusters of 4 blocks of 128 threads, 1 KiB of shared memory each.
/// let cfg = ClusterConfig::linear(16, 4, 128, 1024);
/// unsafe { launch!(cluster module.in_clusters<<<cfg, gpu>>>(&out, 100u32)) }?;
/// gpu.wait(std::time::Duration::from_secs(10))?;
/// # Ok(()) }
/// ```
#[macro_export]
macro_rules! launch {
    // By name: look the kernel up, then launch it.
    (cooperative $module:ident . $name:ident <<< $grid:expr, $block:expr, $smem:expr, $gpu:ident $(. $field:ident)* >>> ( $($arg:expr),* $(,)? )) => {
        match $crate::Module::kernel(&$module, ::core::stringify!($name)) {
            ::core::result::Result::Ok(kernel) => $crate::launch!(cooperative kernel<<<$grid, $block, $smem, $gpu $(. $field)*>>>($($arg),*)),
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    };
    (cluster $module:ident . $name:ident <<< $cfg:expr, $gpu:ident $(. $field:ident)* >>> ( $($arg:expr),* $(,)? )) => {
        match $crate::Module::kernel(&$module, ::core::stringify!($name)) {
            ::core::result::Result::Ok(kernel) => $crate::launch!(cluster kernel<<<$cfg, $gpu $(. $field)*>>>($($arg),*)),
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    };
    ($module:ident . $name:ident <<< $grid:expr, $block:expr, $smem:expr, $gpu:ident $(. $field:ident)* >>> ( $($arg:expr),* $(,)? )) => {
        match $crate::Module::kernel(&$module, ::core::stringify!($name)) {
            ::core::result::Result::Ok(kernel) => $crate::launch!(kernel<<<$grid, $block, $smem, $gpu $(. $field)*>>>($($arg),*)),
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    };
    // A `Kernel` value.
    (cooperative $kernel:ident <<< $grid:expr, $block:expr, $smem:expr, $gpu:ident $(. $field:ident)* >>> ( $($arg:expr),* $(,)? )) => {{
        let mut launch = $crate::Device::launch_builder(&$gpu $(. $field)*, &$kernel);
        $( $crate::cudarc::driver::PushKernelArg::arg(&mut launch, $arg); )*
        $crate::Launch::launch_cooperative(&mut launch, $crate::launch_config($grid, $block, $smem))
    }};
    (cluster $kernel:ident <<< $cfg:expr, $gpu:ident $(. $field:ident)* >>> ( $($arg:expr),* $(,)? )) => {{
        let mut launch = $crate::Device::launch_builder(&$gpu $(. $field)*, &$kernel);
        $( $crate::cudarc::driver::PushKernelArg::arg(&mut launch, $arg); )*
        $crate::Launch::launch_cluster(&mut launch, $cfg)
    }};
    ($kernel:ident <<< $grid:expr, $block:expr, $smem:expr, $gpu:ident $(. $field:ident)* >>> ( $($arg:expr),* $(,)? )) => {{
        let mut launch = $crate::Device::launch_builder(&$gpu $(. $field)*, &$kernel);
        $( $crate::cudarc::driver::PushKernelArg::arg(&mut launch, $arg); )*
        $crate::Launch::launch(&mut launch, $crate::launch_config($grid, $block, $smem))
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_from_scalars_and_tuples() {
        assert_eq!(Dim3::from(7).tuple(), (7, 1, 1));
        assert_eq!(Dim3::from((2, 3)).tuple(), (2, 3, 1));
        assert_eq!(Dim3::from((2, 3, 4)).count(), 24);
        let cfg = launch_config((8, 2, 1), 128, 4096);
        assert_eq!(cfg.grid_dim, (8, 2, 1));
        assert_eq!(cfg.block_dim, (128, 1, 1));
        assert_eq!(cfg.shared_mem_bytes, 4096);
        assert_eq!(
            geometry(&cfg),
            "grid (8, 2, 1) x block (128, 1, 1), 4096 bytes of dynamic shared memory"
        );
    }

    #[test]
    fn zero_dimensions_are_refused() {
        let e = check_nonzero(&launch_config((4, 0, 1), 32, 0)).unwrap_err();
        assert_eq!(e.to_string(), "grid dimension must not be zero");
        let e = check_nonzero(&launch_config(4, 0, 0)).unwrap_err();
        assert_eq!(e.to_string(), "block dimension must not be zero");
        assert!(check_nonzero(&launch_config(1, 1, 0)).is_ok());
    }

    #[test]
    fn argument_mismatches_say_which() {
        assert_eq!(argument_mismatch(&[8, 4], &[8, 4]), None);
        assert_eq!(argument_mismatch(&[], &[]), None);
        let mut checks = 0;
        for (given, params, want) in [
            (
                &[8, 4][..],
                &[8, 4, 8][..],
                "2 given (8, 4 bytes), but the kernel takes 3 (8, 4, 8 bytes)",
            ),
            (
                &[],
                &[8, 4],
                "none given, but the kernel takes 2 (8, 4 bytes)",
            ),
            (&[], &[8], "none given, but the kernel takes 1 (8 bytes)"),
            (&[1], &[], "1 given (1 byte), but the kernel takes none"),
            (
                &[4, 8],
                &[1],
                "2 given (4, 8 bytes), but the kernel takes 1 (1 byte)",
            ),
        ] {
            assert_eq!(argument_mismatch(given, params).as_deref(), Some(want));
            checks += 1;
        }
        assert_eq!(checks, 5);
        let why = argument_mismatch(&[8, 4, 4], &[8, 4, 8]).unwrap();
        assert!(
            why.starts_with("argument 2 (counting from 0) is 4 bytes, but the parameter is 8"),
            "{why}"
        );
        assert!(why.contains("5u64"), "{why}");
    }

    #[test]
    fn raw_config_lists_attributes_only_when_asked() {
        // SAFETY: plain data.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        let cfg = launch_config((3, 2, 1), (64, 2, 1), 512);
        let raw = raw_config(&cfg, std::ptr::null_mut(), &mut attr, 0);
        assert!(raw.attrs.is_null());
        assert_eq!(raw.numAttrs, 0);
        assert_eq!((raw.gridDimX, raw.gridDimY, raw.blockDimY), (3, 2, 2));
        let raw = raw_config(&cfg, std::ptr::null_mut(), &mut attr, 1);
        assert!(!raw.attrs.is_null());
        assert_eq!(raw.sharedMemBytes, 512);
    }
}
