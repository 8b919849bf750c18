//! `lsp`: the language server on this process's stdin and stdout.

use super::*;

pub(super) fn lsp() -> Result<Outcome, source::Error> {
    let (conn, io) = lsp_server::Connection::stdio();
    let served = crate::lsp::serve(&conn, today());
    // The writer thread ends when the last sender is gone.
    drop(conn);
    let joined = io.join();
    match (served, joined) {
        (Ok(()), Ok(())) => Ok(Outcome::Clean),
        (Err(message), _) => Err(source::Error::Protocol { message }),
        (_, Err(e)) => Err(source::Error::Protocol { message: e.to_string() }),
    }
}
