//! The `override-guard` binary: the library's command line, with the allocator it runs
//! best with.

/// Reading a module allocates many small nodes and frees them when its verdict is in;
/// mimalloc does that in about a fifth less CPU time than the C library's allocator.
/// Without transparent huge pages (`no_thp`): with them, every 2 MiB page it touches
/// counts whole, and an audit's peak memory doubled for 3 % of CPU time.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

unsafe extern "C" {
    /// mimalloc's own setter of its options (`mimalloc.h`), in the library the allocator
    /// links.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in `mimalloc.h`'s `mi_option_e` (a test reads the header of
/// the version in Cargo.lock and checks the number).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

fn main() -> std::process::ExitCode {
    // Memory a finished module freed goes back to the system after 10 ms, not mimalloc's
    // default second: an audit frees module after module, and kept them all for a second
    // (a third of its peak memory on a 10,000-module repository, for 2 % of its time).
    // SAFETY: set before any other thread exists, as mimalloc asks of option changes.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
    override_guard::command_line()
}
