//! Rebuild when the web console's build output (`console/dist`, made by
//! `npm run build`, which `just build` runs) changes or first appears, so
//! the binary embeds the console last built.

fn main() {
    let dist = std::path::Path::new("console/dist");
    if dist.exists() {
        println!("cargo:rerun-if-changed=console/dist");
    } else {
        // Not built yet: watch the folder it will appear in.
        println!("cargo:rerun-if-changed=console");
    }
}
