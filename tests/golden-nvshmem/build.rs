//! Stamps one kernel per case of cases.rs into $OUT_DIR/generated.rs: each calls one public
//! function of `ptx_sync::nvshmem` as a user would.

#[allow(dead_code)]
mod cases {
    include!("cases.rs");
}

fn main() {
    println!("cargo:rerun-if-changed=cases.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let mut src = String::new();
    for case in cases::cases() {
        src.push_str(&format!(
            "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn {}({}) {{\n    unsafe {{ {} }}\n}}\n",
            case.kernel, case.params, case.body
        ));
    }
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    std::fs::write(out.join("generated.rs"), src).unwrap();
}
