//! The WebAssembly module of fencing-lab's pages: the library's `web` face, whose `fl_*`
//! exports (src/web/abi.rs) this links into a module of its own. See ARCHITECTURE.md.

pub use fencing_lab::web::handle;
