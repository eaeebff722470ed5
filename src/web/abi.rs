//! The WebAssembly module's face: what the page calls (a command in, an answer out, and memory
//! to pass strings in) and what it offers in turn (the student's code, the page's clock). Strings
//! cross as UTF-8 bytes in the module's memory, named by a pointer and a length packed into one
//! 64-bit number (pointer high, length low); the answer's bytes stay valid until the next call.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use super::lab::Host;

#[link(wasm_import_module = "fencing_lab")]
extern "C" {
    /// Loads the student's code afresh and greets nothing yet; a packed error, or 0.
    fn student_start() -> u64;
    /// One request line (`number` counts the check's requests) answered: a packed reply line.
    fn student_call(number: f64, line: *const u8, len: usize) -> u64;
    /// A check decided, as `check` prints it.
    fn student_decided(text: *const u8, len: usize);
}

thread_local! {
    /// The last answer, kept until the page has read it.
    static ANSWER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Memory for the page to write `len` bytes into (a command, or a string it answers with).
#[no_mangle]
pub extern "C" fn fl_alloc(len: usize) -> *mut u8 {
    let mut buffer = Vec::<u8>::with_capacity(len.max(1));
    let ptr = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    ptr
}

/// Gives back memory [`fl_alloc`] handed out.
#[no_mangle]
pub extern "C" fn fl_free(ptr: *mut u8, len: usize) {
    // SAFETY: `ptr` came from `fl_alloc(len)`, whose capacity was `len.max(1)`.
    unsafe { drop(Vec::from_raw_parts(ptr, 0, len.max(1))) };
}

/// One command of the page (JSON, `len` bytes at `ptr`, which this frees): its answer, packed.
#[no_mangle]
pub extern "C" fn fl_command(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: the page wrote `len` bytes at `ptr`, memory `fl_alloc(len)` gave it.
    let bytes = unsafe { Vec::from_raw_parts(ptr, len, len.max(1)) };
    let command = String::from_utf8_lossy(&bytes).into_owned();
    drop(bytes);
    let answer = super::handle(&command, &|| Arc::new(Mutex::new(PageHost)));
    ANSWER.with(|cell| {
        let mut kept = cell.borrow_mut();
        *kept = answer.into_bytes();
        pack(kept.as_ptr(), kept.len())
    })
}

fn pack(ptr: *const u8, len: usize) -> u64 {
    ((ptr as u64) << 32) | len as u64
}

/// A string the page answered an import with: packed, in memory `fl_alloc` gave it; freed here.
fn unpack(packed: u64) -> String {
    let (ptr, len) = (
        (packed >> 32) as usize as *mut u8,
        (packed & 0xffff_ffff) as usize,
    );
    if len == 0 {
        return String::new();
    }
    // SAFETY: the page wrote `len` bytes at `ptr`, memory `fl_alloc(len)` gave it.
    let bytes = unsafe { Vec::from_raw_parts(ptr, len, len) };
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The student's code in the page's worker.
struct PageHost;

impl Host for PageHost {
    fn start(&mut self) -> Result<(), String> {
        // SAFETY: the import takes nothing and answers a packed string.
        let error = unpack(unsafe { student_start() });
        if error.is_empty() {
            Ok(())
        } else {
            Err(error)
        }
    }

    fn call(&mut self, number: u64, line: &str) -> String {
        // SAFETY: `line` lives across the call; the import answers a packed string.
        unpack(unsafe { student_call(number as f64, line.as_ptr(), line.len()) })
    }

    fn decided(&mut self, text: &str) {
        // SAFETY: `text` lives across the call.
        unsafe { student_decided(text.as_ptr(), text.len()) }
    }
}
