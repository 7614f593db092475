//! `gpu_println!` on the host: the line as C's printf would print the format `vprintf` gets on
//! the GPU, for the calling crate's `std` to print.

use crate::print::{Arguments, Line, Literal};
use core::fmt;

/// `%f` as glibc prints it: 6 decimals, correctly rounded (as Rust's `{:.6}`), `inf`, `-inf`,
/// `nan` and `-nan`.
pub(crate) fn printf_f(v: f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v.is_nan() {
        write!(f, "{sign}nan")
    } else if v.is_infinite() {
        write!(f, "{sign}inf")
    } else {
        write!(f, "{v:.6}")
    }
}

/// The line as C's printf prints the same format and arguments.
impl<L: Literal, A: Arguments, const N: usize> fmt::Display for Line<L, A, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let format = &Self::FORMAT;
        let end = format.iter().position(|&b| b == 0).unwrap_or(N);
        let bytes = &format[..end];
        let (mut i, mut arg) = (0, 0);
        while i < bytes.len() {
            // The text up to the next `%`: the literal's own bytes, so UTF-8 (a `%` is ASCII).
            let next = bytes[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(bytes.len(), |p| i + p);
            f.write_str(core::str::from_utf8(&bytes[i..next]).map_err(|_| fmt::Error)?)?;
            if next == bytes.len() {
                break;
            }
            // A conversion: `%%`, or length modifiers then its letter.
            let mut j = next + 1;
            while j < bytes.len() && matches!(bytes[j], b'l' | b'h') {
                j += 1;
            }
            match bytes.get(j) {
                Some(b'%') => f.write_str("%")?,
                Some(&letter) => {
                    self.arguments.host_fmt(arg, letter, f)?;
                    arg += 1;
                }
                None => return Err(fmt::Error),
            }
            i = j + 1;
        }
        Ok(())
    }
}

/// Prints the line of [`__gpu_line!`](crate::__gpu_line): `vprintf` on the GPU, the calling
/// crate's `std` on the host.
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_print {
    ($format:expr $(, $argument:expr)*) => {{
        // One statement, so that temporaries in the arguments live until the line is printed;
        // `std` is the calling crate's (this crate is `no_std`).
        ::std::print!("{}", $crate::__gpu_line!($format $(, $argument)*));
    }};
}
