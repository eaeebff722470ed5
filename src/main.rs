//! `fencing-lab`: parse, dispatch, report errors (see `fencing_lab::cli`).

fn main() -> std::process::ExitCode {
    fencing_lab::cli::main()
}
