//! The lesson and the lab in a browser: the same simulation, screen, diagram and judge, driven
//! by a page through one small interface, a JSON command in and a JSON answer out. Everything
//! here builds natively too (the tests call it directly, and `frame --keys` draws with it);
//! only `abi` is the WebAssembly module's own. Layered one way, each using those above it:
//!
//! 1. [`lesson`]: a lesson played by keys, its screen and its diagram.
//! 2. [`lab`]: a check of the page's JavaScript, the checker's own Rust.
//! 3. [`api`]: the commands a page sends, and what each answers.
//! 4. [`abi`](self) (WebAssembly only): the module's exports and the page's imports.

pub mod api;
pub mod lab;
pub mod lesson;

#[cfg(target_family = "wasm")]
mod abi;

pub use api::handle;
