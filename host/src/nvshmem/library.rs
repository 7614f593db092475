//! NVSHMEM's host library, opened at run time: where it is looked for, the entry points this
//! crate calls (each checked before the first call), the version check, and `#[repr(C)]`
//! mirrors of the structures those entry points take.
//!
//! No link-time dependency: `libnvshmem_host.so.3` is opened with `dlopen`, so a program built
//! with the `nvshmem` feature runs (and reports [`Error::NvshmemNotFound`]) where NVSHMEM is not
//! installed. The library's RPATH is `$ORIGIN`, so the bootstrap and transport plugins it opens
//! itself (`nvshmem_bootstrap_uid.so.3`, ...) come from its own folder.

use crate::{Error, Result};
use cudarc::driver::sys::CUmodule;
use std::ffi::{c_int, c_uint, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The NVSHMEM version these bindings were written for (the device crate's
/// `ptx_sync::nvshmem::VERSION`): the structures below mirror its headers.
pub const VERSION: (u32, u32, u32) = ptx_sync_build::nvshmem::VERSION;

/// The file name of NVSHMEM's host library (soname).
pub(crate) const HOST_LIBRARY: &str = "libnvshmem_host.so.3";

/// What [`Error::NvshmemNotFound`] tells the user to do.
pub(crate) const HINT: &str = "install NVSHMEM 3.4 with `pip install nvidia-nvshmem-cu13==3.4.5`, \
    or set NVSHMEM_HOME (or PTX_SYNC_NVSHMEM_HOME) to the folder that holds lib/libnvshmem_host.so.3";

/// The version field NVSHMEM's structures start with: `(1 << 16) + sizeof(struct)`, as the
/// headers' initializers (`NVSHMEMX_UNIQUEID_INITIALIZER`, `NVSHMEMX_INIT_ATTR_INITIALIZER`,
/// `nvshmemx_init_init_attr_ver_only`) write it; the library refuses a structure without it.
const fn struct_version(size: usize) -> c_int {
    (1 << 16) + size as c_int
}

/// `nvshmemx_uniqueid_v1` (bootstrap_device_host/nvshmem_uniqueid.h): an `int version` and 124
/// bytes, 128 in all, aligned as its `int`. The bytes travel between processes as they are.
#[repr(C, align(4))]
#[derive(Clone, Copy)]
pub(crate) struct RawUniqueId(pub(crate) [u8; 128]);

impl RawUniqueId {
    /// `NVSHMEMX_UNIQUEID_INITIALIZER`: the version, then zeros; what `nvshmemx_get_uniqueid`
    /// fills in.
    pub(crate) fn initializer() -> RawUniqueId {
        let mut bytes = [0u8; 128];
        bytes[..4].copy_from_slice(&struct_version(128).to_ne_bytes());
        RawUniqueId(bytes)
    }
}

/// `nvshmemx_uniqueid_args_v1` (bootstrap_device_host/nvshmem_uniqueid.h), 24 bytes.
#[repr(C)]
pub(crate) struct UniqueIdArgs {
    pub(crate) version: c_int,
    pub(crate) id: *mut RawUniqueId,
    pub(crate) myrank: c_int,
    pub(crate) nranks: c_int,
}

/// `nvshmemx_init_args_v1` (device_host/nvshmem_types.h), 128 bytes.
#[repr(C)]
pub(crate) struct InitArgs {
    pub(crate) version: c_int,
    pub(crate) uid_args: UniqueIdArgs,
    /// `INIT_ARGS_PADDING`.
    pub(crate) content: [u8; 96],
}

/// `nvshmemx_init_attr_v1` (device_host/nvshmem_types.h), 144 bytes.
#[repr(C)]
pub(crate) struct InitAttr {
    pub(crate) version: c_int,
    pub(crate) mpi_comm: *mut c_void,
    pub(crate) args: InitArgs,
}

const _: () = assert!(std::mem::size_of::<RawUniqueId>() == 128);
const _: () = assert!(std::mem::size_of::<UniqueIdArgs>() == 24);
const _: () = assert!(std::mem::size_of::<InitArgs>() == 128);
const _: () = assert!(std::mem::size_of::<InitAttr>() == 144);

impl InitAttr {
    /// `NVSHMEMX_INIT_ATTR_INITIALIZER`: every version field set, no MPI communicator, the
    /// unique-ID arguments `UNIQUEID_ARGS_INVALID` (-1) until `nvshmemx_set_attr_uniqueid_args`
    /// fills them in.
    pub(crate) fn initializer() -> InitAttr {
        InitAttr {
            version: struct_version(std::mem::size_of::<InitAttr>()),
            mpi_comm: std::ptr::null_mut(),
            args: InitArgs {
                version: struct_version(std::mem::size_of::<InitArgs>()),
                uid_args: UniqueIdArgs {
                    version: struct_version(std::mem::size_of::<UniqueIdArgs>()),
                    id: std::ptr::null_mut(),
                    myrank: -1,
                    nranks: -1,
                },
                content: [0; 96],
            },
        }
    }
}

/// `NVSHMEMX_INIT_WITH_UNIQUEID` (host/nvshmemx_api.h, `enum flags`).
pub(crate) const INIT_WITH_UNIQUEID: c_uint = 1 << 3;

/// Every entry point this crate calls, by name: a library that lacks one is not used.
pub(crate) const SYMBOLS: &[&str] = &[
    "nvshmemx_vendor_get_version_info",
    "nvshmemx_get_uniqueid",
    "nvshmemx_set_attr_uniqueid_args",
    "nvshmemx_hostlib_init_attr",
    "nvshmemx_hostlib_finalize",
    "nvshmem_my_pe",
    "nvshmem_n_pes",
    "nvshmem_malloc",
    "nvshmem_free",
    "nvshmem_barrier_all",
    "nvshmemx_cumodule_init",
    "nvshmemx_cumodule_finalize",
];

/// The opened library and its entry points (the signatures of host/nvshmemx_api.h,
/// host/nvshmem_api.h and host/nvshmem_coll_api.h).
pub(crate) struct Library {
    pub(crate) path: PathBuf,
    pub(crate) vendor_get_version_info: unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int),
    pub(crate) get_uniqueid: unsafe extern "C" fn(*mut RawUniqueId) -> c_int,
    pub(crate) set_attr_uniqueid_args:
        unsafe extern "C" fn(c_int, c_int, *const RawUniqueId, *mut InitAttr) -> c_int,
    pub(crate) hostlib_init_attr: unsafe extern "C" fn(c_uint, *mut InitAttr) -> c_int,
    pub(crate) hostlib_finalize: unsafe extern "C" fn(),
    pub(crate) my_pe: unsafe extern "C" fn() -> c_int,
    pub(crate) n_pes: unsafe extern "C" fn() -> c_int,
    pub(crate) malloc: unsafe extern "C" fn(usize) -> *mut c_void,
    pub(crate) free: unsafe extern "C" fn(*mut c_void),
    pub(crate) barrier_all: unsafe extern "C" fn(),
    pub(crate) cumodule_init: unsafe extern "C" fn(CUmodule) -> c_int,
    pub(crate) cumodule_finalize: unsafe extern "C" fn(CUmodule) -> c_int,
    /// Kept open for the life of the process (the entry points above point into it).
    _library: libloading::Library,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library").field("path", &self.path).finish()
    }
}

/// Why no library was used, kept so that every later call answers the same.
#[derive(Clone, Debug)]
pub(crate) enum LoadFailure {
    NotFound {
        tried: Vec<String>,
    },
    Version {
        found: (u32, u32, u32),
        library: PathBuf,
    },
}

impl LoadFailure {
    pub(crate) fn to_error(&self) -> Error {
        match self {
            LoadFailure::NotFound { tried } => Error::NvshmemNotFound {
                tried: tried.clone(),
                hint: HINT.to_string(),
            },
            LoadFailure::Version { found, library } => Error::NvshmemVersion {
                found: *found,
                expected: VERSION,
                library: library.clone(),
            },
        }
    }
}

/// The library, opened once per process: [`Error::NvshmemNotFound`] listing every place tried,
/// or [`Error::NvshmemVersion`] for an NVSHMEM of another major.minor version.
pub(crate) fn open() -> Result<&'static Library> {
    static LIBRARY: OnceLock<std::result::Result<Library, LoadFailure>> = OnceLock::new();
    LIBRARY
        .get_or_init(|| open_first(candidates()))
        .as_ref()
        .map_err(LoadFailure::to_error)
}

/// Where to look, in order, each with what to say where it does not do: the install that
/// `ptx_sync_build::nvshmem::find_installed` finds (`$NVSHMEM_HOME`, python3's `nvidia.nvshmem`,
/// the builder's fetched copy), then `$PTX_SYNC_NVSHMEM_HOME`, then the dynamic loader's own
/// search (`LD_LIBRARY_PATH`, the system's folders).
pub(crate) fn candidates() -> Vec<std::result::Result<PathBuf, String>> {
    let mut list = Vec::new();
    list.push(
        crate::nvshmem::builder_install()
            .map_err(|why| format!("ptx_sync_build::nvshmem::find_installed(): {why}")),
    );
    match std::env::var_os("PTX_SYNC_NVSHMEM_HOME") {
        Some(home) => list.push(Ok(Path::new(&home).join("lib").join(HOST_LIBRARY))),
        None => list.push(Err("$PTX_SYNC_NVSHMEM_HOME: not set".to_string())),
    }
    list.push(Ok(PathBuf::from(HOST_LIBRARY)));
    list
}

/// Opens the first candidate that loads and exports every entry point of [`SYMBOLS`], then
/// checks its version.
pub(crate) fn open_first(
    candidates: Vec<std::result::Result<PathBuf, String>>,
) -> std::result::Result<Library, LoadFailure> {
    let mut tried = Vec::new();
    for candidate in candidates {
        let path = match candidate {
            Ok(path) => path,
            Err(why) => {
                tried.push(why);
                continue;
            }
        };
        match open_path(&path) {
            Ok(library) => {
                let found = library.version();
                check_version(found, &path)?;
                return Ok(library);
            }
            Err(why) => tried.push(format!("{}: {why}", path.display())),
        }
    }
    Err(LoadFailure::NotFound { tried })
}

/// `Err` for a version whose major or minor differs from [`VERSION`] (the patch may differ:
/// NVSHMEM keeps its ABI within a minor version).
pub(crate) fn check_version(
    found: (u32, u32, u32),
    library: &Path,
) -> std::result::Result<(), LoadFailure> {
    if (found.0, found.1) == (VERSION.0, VERSION.1) {
        Ok(())
    } else {
        Err(LoadFailure::Version {
            found,
            library: library.to_path_buf(),
        })
    }
}

/// Opens `path` (a bare file name goes through the dynamic loader's search) and looks up every
/// entry point; `Err` says why not, in words.
fn open_path(path: &Path) -> std::result::Result<Library, String> {
    use libloading::os::unix::{Library as UnixLibrary, RTLD_GLOBAL, RTLD_NOW};
    // RTLD_GLOBAL: the plugins NVSHMEM opens later resolve symbols against the host library as
    // they do when an application links it. RTLD_NOW: a library that cannot resolve all of its
    // own symbols fails here, not in the middle of a call.
    // SAFETY: opening a library runs its initializers; NVSHMEM's only set up its own state.
    let library: libloading::Library =
        unsafe { UnixLibrary::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
            .map_err(|e| format!("cannot be opened ({e})"))?
            .into();
    let missing: Vec<&str> = SYMBOLS
        .iter()
        .copied()
        // SAFETY: only looks the address up.
        .filter(|s| unsafe { library.get::<*const ()>(s.as_bytes()) }.is_err())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "is not NVSHMEM's host library, or an older one: it lacks {} of the {} entry points \
             this crate calls ({})",
            missing.len(),
            SYMBOLS.len(),
            missing.join(", ")
        ));
    }
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol exists (checked above) and has the signature of the field it
            // is stored in, as NVSHMEM's headers declare it; the library stays open as long as
            // the `Library` that holds the pointer.
            *unsafe { library.get($name.as_bytes()) }.map_err(|e| format!("{}: {e}", $name))?
        };
    }
    Ok(Library {
        path: path.to_path_buf(),
        vendor_get_version_info: sym!("nvshmemx_vendor_get_version_info"),
        get_uniqueid: sym!("nvshmemx_get_uniqueid"),
        set_attr_uniqueid_args: sym!("nvshmemx_set_attr_uniqueid_args"),
        hostlib_init_attr: sym!("nvshmemx_hostlib_init_attr"),
        hostlib_finalize: sym!("nvshmemx_hostlib_finalize"),
        my_pe: sym!("nvshmem_my_pe"),
        n_pes: sym!("nvshmem_n_pes"),
        malloc: sym!("nvshmem_malloc"),
        free: sym!("nvshmem_free"),
        barrier_all: sym!("nvshmem_barrier_all"),
        cumodule_init: sym!("nvshmemx_cumodule_init"),
        cumodule_finalize: sym!("nvshmemx_cumodule_finalize"),
        _library: library,
    })
}

impl Library {
    /// The library's version. Calls `nvshmemx_vendor_get_version_info`, which reads constants
    /// and needs no initialization (nor a GPU).
    pub(crate) fn version(&self) -> (u32, u32, u32) {
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        // SAFETY: three valid out-pointers, as host/nvshmem_api.h declares.
        unsafe { (self.vendor_get_version_info)(&mut major, &mut minor, &mut patch) };
        (major as u32, minor as u32, patch as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The mirrors have the headers' sizes and field offsets (10 checks), and the initializers
    /// write the headers' version fields and invalid ranks (3).
    #[test]
    fn structures_match_the_headers() {
        let checks = [
            size_of::<RawUniqueId>() == 128,
            std::mem::align_of::<RawUniqueId>() == 4,
            size_of::<UniqueIdArgs>() == 24,
            offset_of!(UniqueIdArgs, id) == 8,
            offset_of!(UniqueIdArgs, nranks) == 20,
            size_of::<InitArgs>() == 128,
            offset_of!(InitArgs, uid_args) == 8,
            offset_of!(InitArgs, content) == 32,
            size_of::<InitAttr>() == 144,
            offset_of!(InitAttr, args) == 16,
        ];
        assert_eq!(checks.iter().filter(|&&c| c).count(), 10, "{checks:?}");
        let attr = InitAttr::initializer();
        assert_eq!(
            (attr.version, attr.args.version, attr.args.uid_args.version),
            ((1 << 16) + 144, (1 << 16) + 128, (1 << 16) + 24)
        );
        assert_eq!(
            (attr.args.uid_args.myrank, attr.args.uid_args.nranks),
            (-1, -1)
        );
        let id = RawUniqueId::initializer();
        assert_eq!(
            c_int::from_ne_bytes(id.0[..4].try_into().unwrap()),
            (1 << 16) + 128
        );
    }

    #[test]
    fn versions_match_on_major_and_minor() {
        let p = Path::new("/x/libnvshmem_host.so.3");
        assert!(check_version((3, 4, 5), p).is_ok());
        assert!(check_version((3, 4, 0), p).is_ok());
        assert!(check_version((3, 4, 9), p).is_ok());
        let mut refused = 0;
        for found in [(3, 5, 5), (3, 3, 5), (2, 4, 5), (4, 4, 5), (3, 8, 0)] {
            let e = check_version(found, p).unwrap_err().to_error();
            assert!(matches!(e, Error::NvshmemVersion { found: f, .. } if f == found));
            refused += 1;
        }
        assert_eq!(refused, 5);
        assert_eq!(
            check_version((3, 8, 0), p)
                .unwrap_err()
                .to_error()
                .to_string(),
            "/x/libnvshmem_host.so.3 is NVSHMEM 3.8.0, but these bindings were written for 3.4.5 \
             (the major and minor version must match): install nvidia-nvshmem-cu13==3.4.5 or \
             point NVSHMEM_HOME at a 3.4.x install"
        );
    }

    /// Nothing usable: every place is named with why, then what to install.
    #[test]
    fn not_found_lists_every_place_tried() {
        let dir = std::env::temp_dir().join(format!("ptx-sync-nvshmem-lib-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let not_elf = dir.join(HOST_LIBRARY);
        std::fs::write(&not_elf, "not a shared library").unwrap();
        let failure = open_first(vec![
            Err("ptx_sync_build::nvshmem::find_installed(): no install".to_string()),
            Ok(PathBuf::from("/nonexistent/lib/libnvshmem_host.so.3")),
            Ok(not_elf.clone()),
            // A real library that is not NVSHMEM: it lacks every entry point.
            Ok(PathBuf::from("libc.so.6")),
        ])
        .unwrap_err();
        let _ = std::fs::remove_dir_all(&dir);
        let LoadFailure::NotFound { tried } = &failure else {
            panic!("{failure:?}");
        };
        assert_eq!(tried.len(), 4, "{tried:#?}");
        assert_eq!(
            tried[0],
            "ptx_sync_build::nvshmem::find_installed(): no install"
        );
        assert!(
            tried[1].starts_with("/nonexistent/lib/libnvshmem_host.so.3: cannot be opened ("),
            "{}",
            tried[1]
        );
        assert!(
            tried[2].starts_with(&format!("{}: cannot be opened (", not_elf.display())),
            "{}",
            tried[2]
        );
        assert_eq!(
            tried[3],
            format!(
                "libc.so.6: is not NVSHMEM's host library, or an older one: it lacks 12 of the \
                 12 entry points this crate calls ({})",
                SYMBOLS.join(", ")
            )
        );
        let msg = failure.to_error().to_string();
        let lines: Vec<&str> = msg.lines().collect();
        assert_eq!(lines.len(), 6, "{msg}");
        assert_eq!(
            lines[0],
            "NVSHMEM's host library libnvshmem_host.so.3 was not found or is not usable"
        );
        assert_eq!(
            lines[1],
            "  tried ptx_sync_build::nvshmem::find_installed(): no install"
        );
        assert_eq!(lines[5], HINT);
    }

    /// The real library, where one is installed (set NVSHMEM_HOME to run this on a machine
    /// without python3's nvidia.nvshmem): every entry point is there and the version is 3.4.
    /// Needs no GPU: opening it and asking its version touch no device.
    #[test]
    fn the_installed_library_opens_and_is_3_4() {
        match open() {
            Ok(library) => {
                let v = library.version();
                assert_eq!(
                    (v.0, v.1),
                    (VERSION.0, VERSION.1),
                    "{}",
                    library.path.display()
                );
                eprintln!(
                    "opened {} (NVSHMEM {}.{}.{})",
                    library.path.display(),
                    v.0,
                    v.1,
                    v.2
                );
            }
            Err(e @ Error::NvshmemNotFound { .. }) => eprintln!("skipped: {e}"),
            Err(e) => panic!("{e}"),
        }
    }
}
