//! The CUDA C++ side: bench/cpp/reference.cu built into a shared library on the GPU machine,
//! loaded here so its launches alternate with ours on the same (legacy default) stream.

use libloading::{Library, Symbol};
use ptx_sync_testkit::Result;
use std::ffi::{c_char, c_double, c_float, c_int, CStr, CString};
use std::path::Path;

/// A loaded reference library.
pub struct Reference {
    lib: Library,
}

/// One timed launch: milliseconds and how many units of work (ops, round trips, barriers).
pub type Sample = Result<(f64, f64)>;

impl Reference {
    /// Loads `libreference.so`.
    pub fn load(path: &Path) -> Result<Reference> {
        // SAFETY: a library we built; its initializers only set up the CUDA runtime.
        let lib = unsafe { Library::new(path) }
            .map_err(|e| format!("loading {}: {e}", path.display()))?;
        Ok(Reference { lib })
    }

    /// Every case the reference implements.
    pub fn cases(&self) -> Vec<String> {
        // SAFETY: the ABI documented at the top of reference.cu.
        unsafe {
            let count: Symbol<unsafe extern "C" fn() -> c_int> =
                self.lib.get(b"ref_case_count").unwrap();
            let name: Symbol<unsafe extern "C" fn(c_int) -> *const c_char> =
                self.lib.get(b"ref_case_name").unwrap();
            (0..count())
                .map(|i| CStr::from_ptr(name(i)).to_string_lossy().into_owned())
                .collect()
        }
    }

    /// One timed, checked launch of `case`.
    pub fn run(&self, case: &str) -> Sample {
        type RunFn = unsafe extern "C" fn(
            *const c_char,
            *mut c_float,
            *mut c_double,
            *mut c_char,
            c_int,
        ) -> c_int;
        let name = CString::new(case).unwrap();
        let (mut ms, mut units) = (0f32, 0f64);
        let mut err = vec![0 as c_char; 512];
        // SAFETY: as above; `err` has room for the length we pass.
        let rc = unsafe {
            let run: Symbol<RunFn> = self.lib.get(b"ref_run").map_err(|e| e.to_string())?;
            run(
                name.as_ptr(),
                &mut ms,
                &mut units,
                err.as_mut_ptr(),
                err.len() as c_int,
            )
        };
        // SAFETY: ref_run NUL-terminates `err`.
        let msg = unsafe { CStr::from_ptr(err.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        match rc {
            0 => Ok((ms as f64, units)),
            1 => Err(format!("wrong result: {msg}").into()),
            _ => Err(msg.into()),
        }
    }
}
