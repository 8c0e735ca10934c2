// Package botapi is chatbus's client for the Telegram Bot API: typed calls
// for the methods the Telegram provider uses, a generic allow-list friendly
// [Client.Do], streaming file upload and download, and the [Poller] that
// owns a bot token's single getUpdates loop.
//
// It is written on net/http and encoding/json alone, on purpose. The
// maintained third-party Bot API libraries each own the update loop and the
// error model: none of them lets a caller pass a follower's raw JSON
// parameters through to an allow-listed method verbatim, keep the original
// JSON of every update for the journal, decide exactly when the getUpdates
// offset advances (only past durably acknowledged updates), and see every
// failure as a typed value (409, 401, 429 with retry_after, 5xx, undecodable
// bodies) without the token leaking into error text. Those are the parts
// chatbus cares about, and they are small enough to own.
//
// # Errors
//
// A call fails with one of:
//   - *[APIError]: Telegram answered with ok=false; see [IsConflict],
//     [IsUnauthorized], [IsRateLimited] and [IsServerError].
//   - *[DecodeError]: the body was not a Bot API envelope (malformed JSON,
//     an HTML error page from a proxy, a truncated body).
//   - a transport error (connection refused, reset, timeout) or the
//     context's error.
//
// No error returned by this package contains the bot token: every URL in a
// transport error and every body excerpt is passed through a redactor that
// replaces it with "<redacted>".
package botapi
