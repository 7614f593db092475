//! The NVSHMEM world of this process: initialization under a bootstrap timeout, the thread every
//! NVSHMEM call runs on, symmetric allocation, module registration, and a finalize that is
//! skipped where it would hang.

use super::buffer::SymmetricBuffer;
use super::library::{self, InitAttr, Library, RawUniqueId, INIT_WITH_UNIQUEID};
use super::rank::Rank;
use super::uid::{self, PeerWatch, Rendezvous, UniqueId};
use crate::error::counted;
use crate::{Device, Error, Kernel, Module, Result};
use cudarc::driver::{sys, DeviceRepr, ValidAsZeroBits};
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The bootstrap timeout and the limit of each collective call, unless
/// [`Config::bootstrap_timeout`], [`Config::timeout`] or `PTX_SYNC_NVSHMEM_TIMEOUT` (seconds)
/// say otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How often a wait for the NVSHMEM thread looks at the clock and at the other PEs.
const POLL: Duration = Duration::from_millis(20);

/// Whether this process has a world: NVSHMEM has one per process.
enum Slot {
    Free,
    Alive,
    /// A world could not be finalized (or initialization never returned): NVSHMEM cannot be
    /// initialized again in this process.
    Poisoned(String),
}

static SLOT: Mutex<Slot> = Mutex::new(Slot::Free);

fn slot() -> MutexGuard<'static, Slot> {
    SLOT.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether a world of this process was left unfinalized (NVSHMEM unusable here): then a normal
/// exit can hang (see [`exit_now`](super::exit_now)).
pub(crate) fn left_unusable() -> bool {
    matches!(*slot(), Slot::Poisoned(_))
}

/// How to set up a [`World`]: this process's [`Rank`], how the PEs share the unique ID, and
/// the limits of the waits.
#[derive(Clone, Debug)]
pub struct Config {
    rank: Rank,
    rendezvous: Option<Rendezvous>,
    bootstrap_timeout: Duration,
    timeout: Duration,
}

/// `PTX_SYNC_NVSHMEM_TIMEOUT` in seconds, if set.
fn timeout_from(var: &impl Fn(&str) -> Option<String>) -> Result<Option<Duration>> {
    let Some(text) = var("PTX_SYNC_NVSHMEM_TIMEOUT") else {
        return Ok(None);
    };
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err(Error::NvshmemBootstrap {
            what: "reading PTX_SYNC_NVSHMEM_TIMEOUT".into(),
            detail: format!("{text:?} is not a number of seconds above 0 (e.g. 60 or 2.5)"),
        }),
    }
}

impl Config {
    /// The configuration for `rank`, with no rendezvous (enough for a single PE; set one with
    /// [`rendezvous`](Self::rendezvous)) and both limits [`DEFAULT_TIMEOUT`].
    pub fn new(rank: Rank) -> Config {
        Config {
            rank,
            rendezvous: None,
            bootstrap_timeout: DEFAULT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// What the environment says: the rank ([`Rank::from_env`]; none is
    /// [`Error::NvshmemBootstrap`] saying how to start the PEs), the rendezvous
    /// ([`Rendezvous::from_env`]) and `PTX_SYNC_NVSHMEM_TIMEOUT` (seconds, both limits).
    pub fn from_env() -> Result<Config> {
        Config::from_vars(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) over `var` (a variable's value by name).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Config> {
        let rank = Rank::from_vars(&var)?.ok_or_else(|| Error::NvshmemBootstrap {
            what: "reading the rank from the environment".into(),
            detail: "no launcher's rank variable is set (PTX_SYNC_PE, RANK, OMPI_COMM_WORLD_RANK, \
                     PMI_RANK, PMIX_RANK, SLURM_PROCID): start the PEs with a launcher, or \
                     through ptx_sync_host::nvshmem::run_local or LocalLauncher"
                .into(),
        })?;
        let mut config = Config::new(rank);
        config.rendezvous = Rendezvous::from_vars(&var)?;
        if let Some(limit) = timeout_from(&var)? {
            config.bootstrap_timeout = limit;
            config.timeout = limit;
        }
        Ok(config)
    }

    /// How the PEs share the unique ID.
    pub fn rendezvous(mut self, rendezvous: Rendezvous) -> Config {
        self.rendezvous = Some(rendezvous);
        self
    }

    /// The limit of the bootstrap: the exchange of the unique ID, then
    /// `nvshmemx_hostlib_init_attr` (each). Past it, [`Error::NvshmemBootstrapTimeout`].
    pub fn bootstrap_timeout(mut self, limit: Duration) -> Config {
        self.bootstrap_timeout = limit;
        self
    }

    /// The limit of each later NVSHMEM call ([`World::alloc`], [`World::barrier_all`], the
    /// frees and the finalize, which wait for every PE). Past it, [`Error::Nvshmem`] and
    /// NVSHMEM is unusable in this process.
    pub fn timeout(mut self, limit: Duration) -> Config {
        self.timeout = limit;
        self
    }

    /// This configuration's rank.
    pub fn rank(&self) -> Rank {
        self.rank
    }

    /// Sets up the world: see [`World::init`].
    pub fn init(self) -> Result<World> {
        World::init(self)
    }
}

/// The thread every NVSHMEM call of a world runs on: with its GPU's context current, one call at
/// a time (NVSHMEM's host calls are not meant to run concurrently), and a caller that stops
/// waiting for a call that does not return (a collective call another PE never makes) is not
/// stuck with it.
struct Worker {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
}

/// One call for the NVSHMEM thread.
type Job = Box<dyn FnOnce() + Send>;

impl Worker {
    fn start(gpu: &Device) -> Result<Worker> {
        let (tx, rx) = mpsc::channel::<Job>();
        let ctx = gpu.context().clone();
        std::thread::Builder::new()
            .name("ptx-sync-nvshmem".into())
            .spawn(move || {
                // NVSHMEM uses the context current on the calling thread (its init takes the
                // GPU from it).
                let _ = ctx.bind_to_thread();
                for job in rx {
                    job();
                }
            })
            .map_err(|e| Error::NvshmemBootstrap {
                what: "starting the NVSHMEM thread".into(),
                detail: e.to_string(),
            })?;
        Ok(Worker {
            jobs: Mutex::new(Some(tx)),
        })
    }

    fn submit<R: Send + 'static>(
        &self,
        job: impl FnOnce() -> R + Send + 'static,
    ) -> Option<mpsc::Receiver<R>> {
        let (tx, rx) = mpsc::channel();
        let jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.as_ref()?
            .send(Box::new(move || {
                let _ = tx.send(job());
            }))
            .ok()?;
        Some(rx)
    }

    /// Lets the thread end once its queue is empty.
    fn stop(&self) {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// How a wait for the NVSHMEM thread ended without an answer.
enum Unanswered {
    Timeout,
    PeExited(u32, u32),
    Gone,
}

/// The world's state, shared by the [`World`] and its [`SymmetricBuffer`]s (so it is finalized
/// after the last buffer is freed).
pub(crate) struct Inner {
    pub(crate) lib: &'static Library,
    pub(crate) gpu: Device,
    pub(crate) rank: Rank,
    pub(crate) timeout: Duration,
    worker: Worker,
    peers: Option<PeerWatch>,
    /// Why NVSHMEM can no longer be called in this process, once it cannot.
    broken: Mutex<Option<String>>,
    /// The modules registered with `nvshmemx_cumodule_init`: the `CUmodule` and a kernel of it,
    /// which keeps it loaded until `nvshmemx_cumodule_finalize`.
    modules: Mutex<Vec<(usize, String, Kernel)>>,
    finalized: bool,
}

impl Inner {
    /// `Err` where NVSHMEM can no longer be called here (a call that never returned, a PE that
    /// exited) or the GPU is stuck.
    pub(crate) fn usable(&self, what: &str) -> Result<()> {
        if let Some(why) = self
            .broken
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            return Err(Error::Nvshmem {
                what: what.to_string(),
                detail: format!(
                    "NVSHMEM can no longer be called in this process: {why}. Exit the process"
                ),
            });
        }
        self.gpu.usable()
    }

    fn break_with(&self, why: String) {
        let mut broken = self.broken.lock().unwrap_or_else(|p| p.into_inner());
        if broken.is_none() {
            *broken = Some(why);
        }
    }

    /// Whether this process must not make collective calls any more (and why): NVSHMEM is
    /// broken here, the GPU is stuck, or another PE exited.
    pub(crate) fn skip_collectives(&self) -> Option<String> {
        if let Some(why) = self
            .broken
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            return Some(why);
        }
        if let Err(e) = self.gpu.usable() {
            return Some(e.to_string());
        }
        if let Some((pe, pid)) = self.peers.as_ref().and_then(PeerWatch::gone) {
            let why = format!("PE {pe} (process {pid}) exited");
            self.break_with(why.clone());
            return Some(why);
        }
        None
    }

    /// Runs `job` on the NVSHMEM thread and waits for its answer at most `limit`, looking at
    /// the other PEs meanwhile.
    fn wait_for<R: Send + 'static>(
        &self,
        limit: Duration,
        job: impl FnOnce(&'static Library) -> R + Send + 'static,
    ) -> std::result::Result<R, Unanswered> {
        let lib = self.lib;
        let rx = self
            .worker
            .submit(move || job(lib))
            .ok_or(Unanswered::Gone)?;
        let start = Instant::now();
        loop {
            match rx.recv_timeout(POLL) {
                Ok(r) => return Ok(r),
                Err(RecvTimeoutError::Disconnected) => return Err(Unanswered::Gone),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Some((pe, pid)) = self.peers.as_ref().and_then(PeerWatch::gone) {
                return Err(Unanswered::PeExited(pe, pid));
            }
            if start.elapsed() >= limit {
                return Err(Unanswered::Timeout);
            }
        }
    }

    /// Calls NVSHMEM through `job` (named `what` in errors) with the world's limit; a call that
    /// does not return in time, or during which a PE exits, leaves NVSHMEM unusable here.
    pub(crate) fn call<R: Send + 'static>(
        &self,
        what: &str,
        job: impl FnOnce(&'static Library) -> R + Send + 'static,
    ) -> Result<R> {
        self.usable(what)?;
        match self.wait_for(self.timeout, job) {
            Ok(r) => Ok(r),
            Err(Unanswered::PeExited(pe, pid)) => {
                self.break_with(format!("PE {pe} (process {pid}) exited during {what}"));
                Err(Error::PeExited {
                    pe,
                    pid,
                    what: format!("PE {} waited in {what}", self.rank.pe),
                })
            }
            Err(Unanswered::Timeout) => {
                let why = format!(
                    "{what} did not return within {:.1} s",
                    self.timeout.as_secs_f64()
                );
                self.break_with(why.clone());
                Err(Error::Nvshmem {
                    what: what.to_string(),
                    detail: format!(
                        "did not return within {:.1} s on PE {} of {}: a PE that does not make the \
                         same call (collective calls must be made by every PE, in the same \
                         order), one that is stuck, or one that is gone. NVSHMEM can no longer be \
                         called in this process: exit it",
                        self.timeout.as_secs_f64(),
                        self.rank.pe,
                        self.rank.n_pes
                    ),
                })
            }
            Err(Unanswered::Gone) => {
                self.break_with("the NVSHMEM thread ended".into());
                Err(Error::Nvshmem {
                    what: what.to_string(),
                    detail: "the NVSHMEM thread ended (a panic inside a call?)".into(),
                })
            }
        }
    }

    /// Waits for every stream of this GPU, at most the world's limit.
    pub(crate) fn settle_gpu(&self, what: &str) -> Result<()> {
        crate::watchdog::settle_all(self.gpu.ordinal(), self.timeout, what)
    }

    /// `nvshmemx_cumodule_finalize` for every registered module, then
    /// `nvshmemx_hostlib_finalize`; none of it where it would hang (then the modules stay loaded
    /// and NVSHMEM is not finalized: the process should exit). Once.
    fn shutdown(&mut self) -> Result<()> {
        if self.finalized {
            return Ok(());
        }
        self.finalized = true;
        let result = self.finalize_calls();
        let modules = std::mem::take(&mut *self.modules.lock().unwrap_or_else(|p| p.into_inner()));
        *slot() = match &result {
            Ok(()) => {
                drop(modules);
                Slot::Free
            }
            Err(e) => {
                // NVSHMEM may still point into them.
                std::mem::forget(modules);
                Slot::Poisoned(e.to_string())
            }
        };
        self.worker.stop();
        result
    }

    fn finalize_calls(&self) -> Result<()> {
        let what = "finalizing NVSHMEM";
        if let Some(why) = self.skip_collectives() {
            return Err(Error::Nvshmem {
                what: what.into(),
                detail: format!(
                    "skipped (it is collective and would not return): {why}. Exit the process"
                ),
            });
        }
        self.settle_gpu("the GPU work before finalizing NVSHMEM")?;
        let modules: Vec<(usize, String)> = self
            .modules
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(m, name, _)| (*m, name.clone()))
            .collect();
        for (module, name) in modules {
            // SAFETY: a module registered with nvshmemx_cumodule_init and still loaded (its
            // kernel is held until after this).
            let rc = self.call(
                &format!("nvshmemx_cumodule_finalize of {name}"),
                move |lib| unsafe { (lib.cumodule_finalize)(module as sys::CUmodule) },
            )?;
            if rc != 0 {
                return Err(Error::Nvshmem {
                    what: format!("nvshmemx_cumodule_finalize of {name}"),
                    detail: format!("returned {rc}"),
                });
            }
        }
        // SAFETY: initialized (an Inner exists only after a successful init), finalized once.
        self.call("nvshmemx_hostlib_finalize", |lib| unsafe {
            (lib.hostlib_finalize)()
        })
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// This process's NVSHMEM world: its PE, its GPU (opened as a [`Device`], its primary context
/// current on the thread NVSHMEM runs on), symmetric memory, and modules whose kernels call
/// NVSHMEM. One per process.
///
/// Collective calls ([`alloc`](Self::alloc), [`barrier_all`](Self::barrier_all), dropping a
/// [`SymmetricBuffer`], dropping the world) must be made by every PE, in the same order. Each
/// waits at most the world's limit ([`Config::timeout`]); past it, or when another PE's process
/// exits meanwhile ([`Error::PeExited`], known through the rendezvous directory), NVSHMEM can
/// no longer be called in this process, and drops skip the collective frees and the finalize
/// (which would hang): exit the process.
///
/// ```no_run
/// use ptx_sync_host::{launch, nvshmem::World};
/// use std::time::Duration;
/// # fn main() -> Result<(), ptx_sync_host::Error> {
/// // Started by a launcher (torchrun, mpirun, srun, or nvshmem::LocalLauncher), one process per GPU.
/// let world = World::from_env()?;
/// let kernels = world.load_ptx("target/ptx/my_nvshmem_kernels.ptx")?;
/// let data = world.alloc::<u64>(1024)?; // every PE, same size, same order
/// let (pe, n) = (world.my_pe(), world.n_pes());
/// // ring(data: Symmetric<u64>, n: u32): puts into the next PE's copy, waits for its own.
/// let gpu = world.gpu();
/// unsafe { launch!(cooperative kernels.ring<<<1, 128, 0, gpu>>>(&data, n)) }?;
/// world.wait(Duration::from_secs(10))?; // Error::PeExited names a PE that died meanwhile
/// let mine = data.download()?;
/// # let _ = (pe, mine); Ok(()) }
/// ```
pub struct World {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("rank", &self.inner.rank)
            .field("gpu", &self.inner.gpu)
            .field("library", &self.inner.lib.path)
            .finish()
    }
}

/// The one-node defaults NVSHMEM needs on the shared machines: no NVLink multicast objects
/// (`NVSHMEM_DISABLE_NVLS=1`: creating them can take a host's GPUs out of service), unless the
/// user set the variable.
fn set_nvls_default() {
    if std::env::var_os("NVSHMEM_DISABLE_NVLS").is_none() {
        // Before NVSHMEM (which reads it with getenv at init) runs on any thread.
        std::env::set_var("NVSHMEM_DISABLE_NVLS", "1");
    }
}

/// Asks the library for a fresh unique ID: what PE 0 shares with the others where the
/// application does the sharing ([`Rendezvous::Id`]). Calls `nvshmemx_get_uniqueid`.
pub fn unique_id() -> Result<UniqueId> {
    let lib = library::open()?;
    get_uniqueid(lib)
}

fn get_uniqueid(lib: &'static Library) -> Result<UniqueId> {
    let mut raw = RawUniqueId::initializer();
    // SAFETY: a valid, initialized `nvshmemx_uniqueid_t` (version field set) to fill in.
    let rc = unsafe { (lib.get_uniqueid)(&mut raw) };
    if rc != 0 {
        return Err(Error::NvshmemBootstrap {
            what: "nvshmemx_get_uniqueid".into(),
            detail: format!(
                "returned {rc} (on one node set NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo; \
                 NVSHMEM_DEBUG=WARN prints why)"
            ),
        });
    }
    Ok(UniqueId::from_bytes(raw.0))
}

impl World {
    /// [`Config::from_env`], then [`init`](Self::init).
    pub fn from_env() -> Result<World> {
        World::init(Config::from_env()?)
    }

    /// Sets up NVSHMEM in this process: opens GPU `local_pe` as a [`Device`], sets
    /// `NVSHMEM_DISABLE_NVLS=1` unless the variable is set, opens the library (checking its
    /// version), shares the unique ID (PE 0 calls `nvshmemx_get_uniqueid`), and calls
    /// `nvshmemx_set_attr_uniqueid_args` and `nvshmemx_hostlib_init_attr` with
    /// `NVSHMEMX_INIT_WITH_UNIQUEID`, which returns once every PE has joined. Each phase waits
    /// at most the bootstrap timeout ([`Error::NvshmemBootstrapTimeout`]; an init that never
    /// returns leaves NVSHMEM unusable in this process).
    pub fn init(config: Config) -> Result<World> {
        {
            let mut s = slot();
            match &*s {
                Slot::Free => *s = Slot::Alive,
                Slot::Alive => {
                    return Err(Error::NvshmemBootstrap {
                        what: "World::init".into(),
                        detail: "this process has a World already (NVSHMEM has one per \
                                 process): use it, or drop it first"
                            .into(),
                    })
                }
                Slot::Poisoned(why) => {
                    return Err(Error::NvshmemBootstrap {
                        what: "World::init".into(),
                        detail: format!(
                            "an earlier World of this process could not be finalized ({why}): \
                             NVSHMEM cannot be set up again in this process; start a new one"
                        ),
                    })
                }
            }
        }
        let mut poison = None;
        let result = World::init_inner(config, &mut poison);
        if result.is_err() {
            *slot() = match poison {
                Some(why) => Slot::Poisoned(why),
                None => Slot::Free,
            };
        }
        result
    }

    fn init_inner(config: Config, poison: &mut Option<String>) -> Result<World> {
        let rank = config.rank;
        if rank.pe >= rank.n_pes || rank.local_pe >= rank.n_pes {
            return Err(Error::NvshmemBootstrap {
                what: "World::init".into(),
                detail: format!(
                    "{rank} is inconsistent: PEs count from 0, below the number of PEs"
                ),
            });
        }
        if config.rendezvous.is_none() && rank.n_pes > 1 {
            return Err(Error::NvshmemBootstrap {
                what: "sharing the unique ID".into(),
                detail: format!(
                    "{} PEs but no rendezvous: set PTX_SYNC_NVSHMEM_RENDEZVOUS to a directory \
                     every PE sees, or PTX_SYNC_NVSHMEM_ADDR to host:port of PE 0 (or \
                     Config::rendezvous)",
                    rank.n_pes
                ),
            });
        }
        set_nvls_default();
        let lib = library::open()?;
        let gpu = Device::open(rank.local_pe as usize)?;
        let peers = match &config.rendezvous {
            Some(Rendezvous::Directory(dir)) => {
                uid::write_pid_file(dir, rank.pe)?;
                Some(PeerWatch {
                    dir: dir.clone(),
                    me: rank.pe,
                    n_pes: rank.n_pes,
                })
            }
            _ => None,
        };
        let worker = Worker::start(&gpu)?;
        let inner = Inner {
            lib,
            gpu,
            rank,
            timeout: config.timeout,
            worker,
            peers,
            broken: Mutex::new(None),
            modules: Mutex::new(Vec::new()),
            // Nothing to finalize until init returns.
            finalized: true,
        };
        let limit = config.bootstrap_timeout;
        let fresh_id = || inner.bootstrap_call(limit, "nvshmemx_get_uniqueid", get_uniqueid)?;
        let id = match &config.rendezvous {
            // A single PE shares with no one.
            None => fresh_id()?,
            Some(rendezvous) => uid::exchange(rendezvous, &rank, limit, fresh_id)?,
        };
        let (pe, n) = (rank.pe as i32, rank.n_pes as i32);
        let rc = inner.bootstrap_call(limit, "nvshmemx_hostlib_init_attr", move |lib| {
            let raw = RawUniqueId(*id.as_bytes());
            let mut attr = InitAttr::initializer();
            // SAFETY: the ID and the attributes are valid and initialized as the headers'
            // initializers make them; the attributes point at `raw`, alive until init returns.
            unsafe {
                let rc = (lib.set_attr_uniqueid_args)(pe, n, &raw, &mut attr);
                if rc != 0 {
                    return (rc, "nvshmemx_set_attr_uniqueid_args");
                }
                (
                    (lib.hostlib_init_attr)(INIT_WITH_UNIQUEID, &mut attr),
                    "nvshmemx_hostlib_init_attr",
                )
            }
        });
        let (rc, call) = match rc {
            Ok(r) => r,
            Err(e) => {
                *poison = Some(format!("nvshmemx_hostlib_init_attr did not return: {e}"));
                return Err(e);
            }
        };
        if rc != 0 {
            *poison = Some(format!("{call} returned {rc}"));
            return Err(Error::NvshmemBootstrap {
                what: call.into(),
                detail: format!(
                    "returned {rc} on PE {} of {}. NVSHMEM_DEBUG=WARN prints why; on one node set \
                     NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo and NVSHMEM_REMOTE_TRANSPORT=none",
                    rank.pe, rank.n_pes
                ),
            });
        }
        let mut inner = inner;
        inner.finalized = false;
        // SAFETY: NVSHMEM is initialized.
        let (my_pe, n_pes) = inner.call("nvshmem_my_pe", |lib| unsafe {
            ((lib.my_pe)(), (lib.n_pes)())
        })?;
        let world = World {
            inner: Arc::new(inner),
        };
        if (my_pe, n_pes) != (pe, n) {
            return Err(Error::NvshmemBootstrap {
                what: "checking the world NVSHMEM set up".into(),
                detail: format!(
                    "NVSHMEM says PE {my_pe} of {n_pes}, the launcher said PE {pe} of {n}"
                ),
            });
        }
        Ok(world)
    }

    /// This process's PE (`nvshmem_my_pe`, checked at init to be the launcher's).
    pub fn my_pe(&self) -> u32 {
        self.inner.rank.pe
    }

    /// How many PEs there are (`nvshmem_n_pes`).
    pub fn n_pes(&self) -> u32 {
        self.inner.rank.n_pes
    }

    /// The rank the world was set up with.
    pub fn rank(&self) -> Rank {
        self.inner.rank
    }

    /// This PE's GPU: launch kernels through it ([`Device::launch_builder`], [`launch!`](crate::launch!);
    /// kernels that synchronize across PEs cooperatively, so that every block is resident, as
    /// `nvshmemx_collective_launch` does), copy with it.
    pub fn gpu(&self) -> &Device {
        &self.inner.gpu
    }

    /// The limit of each collective call ([`Config::timeout`]).
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    /// Where NVSHMEM's host library was opened from.
    pub fn library_path(&self) -> &Path {
        &self.inner.lib.path
    }

    /// `len` zeroed `T`s of symmetric memory: the same address range on every PE, which
    /// kernels on any PE name by the address ([`SymmetricBuffer::device_ptr`]) and a PE
    /// number. Collective: every PE allocates, the same sizes in the same order. Calls
    /// `nvshmem_malloc`, zeroes this PE's copy on the world's stream (waiting for the work
    /// queued there before), then `nvshmem_barrier_all`, so that no PE's kernel writes into a
    /// copy that is zeroed after. NULL from `nvshmem_malloc` (a heap too
    /// small, `NVSHMEM_SYMMETRIC_SIZE`) is [`Error::Nvshmem`].
    pub fn alloc<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<SymmetricBuffer<T>> {
        if len == 0 {
            return Err(Error::Empty("symmetric buffer length"));
        }
        let bytes = crate::error::byte_len::<T>(len, "symmetric buffer")?;
        let what = format!("nvshmem_malloc of {}", counted(bytes as u128, "byte"));
        self.inner.usable(&what)?;
        // SAFETY: NVSHMEM is initialized; any size may be asked for.
        let ptr = self
            .inner
            .call(&what, move |lib| unsafe { (lib.malloc)(bytes) as usize })?;
        if ptr == 0 {
            return Err(Error::Nvshmem {
                what,
                detail: "returned NULL: the symmetric heap is too small (NVSHMEM_SYMMETRIC_SIZE, \
                         the same on every PE), or the PEs asked for different sizes"
                    .into(),
            });
        }
        // SAFETY: `bytes` bytes at `ptr` of this GPU's memory (symmetric heap), zeroed next.
        let buffer = unsafe { SymmetricBuffer::from_raw(self.inner.clone(), ptr as u64, len) };
        buffer.zero()?;
        // Only this zeroing needs to be done (waited for above), not other work on the GPU.
        // SAFETY: NVSHMEM is initialized.
        self.inner
            .call("nvshmem_barrier_all", |lib| unsafe { (lib.barrier_all)() })?;
        Ok(buffer)
    }

    /// Loads a PTX file ([`Device::load_ptx`]) and, where it holds NVSHMEM's device state
    /// (`nvshmemi_device_state_d`: a kernel crate linked with `libnvshmem_device.bc`),
    /// registers it with `nvshmemx_cumodule_init`, which fills that state in. The module stays
    /// loaded as long as the world (it is finalized with `nvshmemx_cumodule_finalize` before
    /// NVSHMEM is).
    pub fn load_ptx(&self, path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        self.gpu().usable()?;
        let text = crate::ptx::read_ptx(path)?;
        self.load_ptx_str(&path.display().to_string(), &text)
    }

    /// [`load_ptx`](Self::load_ptx) for PTX text (`name` is what errors call it).
    pub fn load_ptx_str(&self, name: &str, ptx: &str) -> Result<Module> {
        let module = self.gpu().load_ptx_str(name, ptx)?;
        if !ptx.contains("nvshmemi_device_state_d") {
            return Ok(module);
        }
        let what = format!("nvshmemx_cumodule_init of {name}");
        self.inner.usable(&what)?;
        // The driver module behind cudarc's: from any of its kernels (cudarc keeps the handle
        // private).
        let mut entries: Vec<String> = crate::ptx::entries(ptx).into_keys().collect();
        entries.sort();
        let Some(first) = entries.first() else {
            return Err(Error::Nvshmem {
                what,
                detail: "the module has no kernel (.entry): nothing of it can call NVSHMEM".into(),
            });
        };
        self.register(name, &module, first)?;
        Ok(module)
    }

    /// Loads a compiled module image from `path` (a cubin or fatbin: CUDA C++ that nvcc
    /// compiled with `-rdc=true` and device-linked with NVSHMEM's `libnvshmem_device.a`) with
    /// [`Device::load_cubin`], and registers it with `nvshmemx_cumodule_init`. An image has no
    /// text to find its kernels in: `kernel` names any one of them (the driver module is found
    /// through it). Launches of its kernels are not checked against their parameter lists.
    pub fn load_cubin(&self, path: impl AsRef<Path>, kernel: &str) -> Result<Module> {
        let path = path.as_ref();
        self.gpu().usable()?;
        let image = std::fs::read(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => Error::PtxNotFound(path.to_path_buf()),
            _ => Error::PtxUnreadable {
                path: path.to_path_buf(),
                source,
            },
        })?;
        let name = path.display().to_string();
        let module = self.gpu().load_cubin(&name, &image)?;
        self.inner
            .usable(&format!("nvshmemx_cumodule_init of {name}"))?;
        self.register(&name, &module, kernel)?;
        Ok(module)
    }

    /// `nvshmemx_cumodule_init` of `module` (named `name` in errors), whose kernel `first`
    /// leads to the driver module; remembered for `nvshmemx_cumodule_finalize`.
    fn register(&self, name: &str, module: &Module, first: &str) -> Result<()> {
        let what = format!("nvshmemx_cumodule_init of {name}");
        let kernel = module.kernel(first)?;
        self.gpu()
            .context()
            .bind_to_thread()
            .map_err(|e| self.gpu().driver_error("binding the context", e))?;
        let mut cu: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: a valid function of a loaded module; `cu` receives its module.
        unsafe { sys::cuFuncGetModule(&mut cu, kernel.function().cu_function()) }
            .result()
            .map_err(|e| {
                self.gpu()
                    .driver_error(&format!("finding the module of `{first}`"), e)
            })?;
        let handle = cu as usize;
        // SAFETY: a loaded module of the context NVSHMEM was initialized in.
        let rc = self.inner.call(&what, move |lib| unsafe {
            (lib.cumodule_init)(handle as sys::CUmodule)
        })?;
        if rc != 0 {
            return Err(Error::Nvshmem {
                what,
                detail: format!(
                    "returned {rc}: was the kernel crate linked with the libnvshmem_device.bc of \
                     the same NVSHMEM ({}.{}.x)?",
                    library::VERSION.0,
                    library::VERSION.1
                ),
            });
        }
        self.inner
            .modules
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((handle, name.to_string(), kernel));
        Ok(())
    }

    /// Waits for the work on this PE's GPU so far, then for every PE to arrive
    /// (`nvshmem_barrier_all` on the host, which also completes the NVSHMEM operations issued
    /// before it). Collective. Each wait is bounded by the world's limit.
    pub fn barrier_all(&self) -> Result<()> {
        let what = "nvshmem_barrier_all";
        self.inner.usable(what)?;
        self.inner
            .settle_gpu("the GPU work before nvshmem_barrier_all")?;
        // SAFETY: NVSHMEM is initialized.
        self.inner.call(what, |lib| unsafe { (lib.barrier_all)() })
    }

    /// Waits for the work launched on [`gpu`](Self::gpu) ([`Device::wait`]). A kernel that does
    /// not finish within `limit` is [`Error::PeExited`] where another PE's process has exited
    /// (known through the rendezvous directory: then collective calls are skipped from now on),
    /// else [`Error::Timeout`] (the GPU is stuck).
    pub fn wait(&self, limit: Duration) -> Result<()> {
        match self.gpu().wait(limit) {
            Err(e @ Error::Timeout { .. }) => {
                match self.inner.peers.as_ref().and_then(PeerWatch::gone) {
                    Some((pe, pid)) => {
                        self.inner
                            .break_with(format!("PE {pe} (process {pid}) exited"));
                        Err(Error::PeExited {
                            pe,
                            pid,
                            what: format!("PE {} waited for its GPU work ({e})", self.my_pe()),
                        })
                    }
                    None => Err(e),
                }
            }
            other => other,
        }
    }

    /// `Ok` while NVSHMEM can be called in this process and the GPU is not stuck.
    pub fn usable(&self) -> Result<()> {
        self.inner.usable("using the NVSHMEM world")
    }

    /// Finalizes now and says how it went (dropping the world does the same and says nothing):
    /// waits for the GPU, `nvshmemx_cumodule_finalize` for each registered module,
    /// `nvshmemx_hostlib_finalize`. Collective. Skipped, with an error saying why, where it
    /// would hang (a stuck GPU, a call that never returned, an exited PE); an error too while
    /// [`SymmetricBuffer`]s of the world are alive (they are freed first; the world is then
    /// finalized when the last is dropped).
    pub fn finalize(self) -> Result<()> {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => inner.shutdown(),
            Err(inner) => {
                let alive = Arc::strong_count(&inner) - 1;
                Err(Error::Nvshmem {
                    what: "finalizing NVSHMEM".into(),
                    detail: format!(
                        "{} of this world still alive: NVSHMEM is finalized when the last is \
                         dropped (drop them first: every PE frees, then finalizes)",
                        counted(alive as u128, "symmetric buffer")
                    ),
                })
            }
        }
    }
}

impl Inner {
    /// A call during bootstrap: [`Error::NvshmemBootstrapTimeout`] past `limit`,
    /// [`Error::PeExited`] for a PE that exits meanwhile.
    fn bootstrap_call<R: Send + 'static>(
        &self,
        limit: Duration,
        what: &str,
        job: impl FnOnce(&'static Library) -> R + Send + 'static,
    ) -> Result<R> {
        match self.wait_for(limit, job) {
            Ok(r) => Ok(r),
            Err(Unanswered::Timeout) => Err(Error::NvshmemBootstrapTimeout {
                pe: self.rank.pe,
                n_pes: self.rank.n_pes,
                what: format!("{what} (every PE joins it)"),
                limit,
            }),
            Err(Unanswered::PeExited(pe, pid)) => Err(Error::PeExited {
                pe,
                pid,
                what: format!("PE {} waited in {what}", self.rank.pe),
            }),
            Err(Unanswered::Gone) => Err(Error::NvshmemBootstrap {
                what: what.into(),
                detail: "the NVSHMEM thread ended (a panic inside a call?)".into(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let list: Vec<(String, String)> = list
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |n| list.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone())
    }

    /// A failed init leaves the process free to try again (the same error, not "a World
    /// exists"); inconsistent ranks and a missing rendezvous are refused before NVSHMEM or the
    /// GPU is touched.
    #[test]
    fn failed_inits_say_why_and_leave_the_slot_free() {
        let rank = |pe, n_pes, local_pe| Rank {
            pe,
            n_pes,
            local_pe,
            launcher: "test",
        };
        let detail = |config: Config| match World::init(config) {
            Err(Error::NvshmemBootstrap { detail, .. }) => detail,
            other => panic!("{other:?}"),
        };
        let mut checked = 0;
        for _ in 0..2 {
            assert_eq!(
                detail(Config::new(rank(0, 2, 0))),
                "2 PEs but no rendezvous: set PTX_SYNC_NVSHMEM_RENDEZVOUS to a directory every PE \
                 sees, or PTX_SYNC_NVSHMEM_ADDR to host:port of PE 0 (or Config::rendezvous)"
            );
            assert_eq!(
                detail(Config::new(rank(2, 2, 0))),
                "PE 2 of 2 (local 0, from test) is inconsistent: PEs count from 0, below the \
                 number of PEs"
            );
            assert_eq!(
                detail(Config::new(rank(0, 2, 5))),
                "PE 0 of 2 (local 5, from test) is inconsistent: PEs count from 0, below the \
                 number of PEs"
            );
            checked += 3;
        }
        assert_eq!(checked, 6);
        assert!(matches!(*slot(), Slot::Free));
    }

    /// The configuration the environment gives: 4 cases.
    #[test]
    fn config_from_variables() {
        let c = Config::from_vars(vars(&[
            ("PTX_SYNC_PE", "1"),
            ("PTX_SYNC_N_PES", "2"),
            ("PTX_SYNC_NVSHMEM_RENDEZVOUS", "/tmp/x"),
            ("PTX_SYNC_NVSHMEM_TIMEOUT", "2.5"),
        ]))
        .unwrap();
        assert_eq!((c.rank.pe, c.rank.n_pes), (1, 2));
        assert_eq!(c.rendezvous, Some(Rendezvous::Directory("/tmp/x".into())));
        assert_eq!(
            (c.bootstrap_timeout, c.timeout),
            (Duration::from_millis(2500), Duration::from_millis(2500))
        );
        let c = Config::from_vars(vars(&[("RANK", "0"), ("WORLD_SIZE", "1")])).unwrap();
        assert_eq!((c.rendezvous, c.timeout), (None, DEFAULT_TIMEOUT));
        match Config::from_vars(vars(&[])) {
            Err(Error::NvshmemBootstrap { detail, .. }) => {
                assert!(
                    detail.starts_with("no launcher's rank variable is set"),
                    "{detail}"
                )
            }
            other => panic!("{other:?}"),
        }
        let mut refused = 0;
        for bad in ["0", "-1", "soon", "inf"] {
            match Config::from_vars(vars(&[
                ("RANK", "0"),
                ("WORLD_SIZE", "1"),
                ("PTX_SYNC_NVSHMEM_TIMEOUT", bad),
            ])) {
                Err(Error::NvshmemBootstrap { what, detail }) => {
                    assert_eq!(what, "reading PTX_SYNC_NVSHMEM_TIMEOUT");
                    assert_eq!(
                        detail,
                        format!("{bad:?} is not a number of seconds above 0 (e.g. 60 or 2.5)")
                    );
                    refused += 1;
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert_eq!(refused, 4);
    }
}
