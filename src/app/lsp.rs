//! `lsp`: the language server on this process's stdin and stdout.

use super::outcome::Outcome;
use super::policies::today;
use crate::error;

pub(super) fn lsp() -> Result<Outcome, error::Error> {
    let (conn, io) = lsp_server::Connection::stdio();
    let served = crate::lsp::serve(&conn, today());
    // The writer thread ends when the last sender is gone.
    drop(conn);
    let joined = io.join();
    match (served, joined) {
        (Ok(()), Ok(())) => Ok(Outcome::Clean),
        (Err(message), _) => Err(error::Error::Protocol { message }),
        (_, Err(e)) => Err(error::Error::Protocol { message: e.to_string() }),
    }
}
