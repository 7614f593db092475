use crate::Arch;

/// The archs the PTX checks (`cargo xtask ptxas`, `tests/tests/ptxas.rs`) assemble for on this
/// machine: every [`Arch::ptxas_required`] arch, whether or not a ptxas is found (so a missing
/// one fails the check), plus sm_70 when [`find_ptxas`](crate::find_ptxas) finds a ptxas that
/// supports it. The second value says which archs were left out and why.
pub fn ptxas_archs_checked() -> (Vec<Arch>, Vec<String>) {
    let mut checked = Vec::new();
    let mut skipped = Vec::new();
    for arch in Arch::SUPPORTED {
        if arch.ptxas_required() {
            checked.push(arch);
            continue;
        }
        match crate::find_ptxas(arch) {
            Ok(_) => checked.push(arch),
            Err(e) => skipped.push(format!("{arch} skipped: {e}")),
        }
    }
    (checked, skipped)
}
