//! `lsp`: the language server on this process's stdin and stdout.

use super::outcome::Outcome;
use super::output::write_note;
use super::policies::today;
use crate::error;

pub(super) fn lsp() -> Result<Outcome, error::Error> {
    let protocol = |message: String| error::Error::Protocol { message };
    let (conn, io) = crate::lsp::transport::stdio(write_note)
        .map_err(|e| protocol(format!("starting the transport: {e}")))?;
    let served = crate::lsp::serve(&conn, today(), write_note);
    // The writer thread ends when the last sender is gone.
    drop(conn);
    let joined = io.join();
    match (served, joined) {
        (Ok(()), Ok(())) => Ok(Outcome::Clean),
        (Err(message), _) | (_, Err(message)) => Err(protocol(message)),
    }
}
