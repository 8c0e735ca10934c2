// Package contract holds the names both sides of the provider child
// contract (provider/README.md) must agree on: the supervisor, which starts
// children, and the provider SDK, which children are built on. It has no
// code, so that the supervisor can share them without depending on the SDK.
package contract

const (
	// EnvSocket names the environment variable holding the socket path the
	// child must listen on.
	EnvSocket = "CHATBUS_PROVIDER_SOCKET"
	// EnvName names the environment variable holding the provider name.
	EnvName = "CHATBUS_PROVIDER_NAME"
	// HandshakeVersion is the first field of the handshake line.
	HandshakeVersion = 1
	// Generation is the version of the ProviderService contract
	// (DescribeResponse.generation, IdentifyResponse.generation,
	// Fence.generation). A supervisor refuses a child of another
	// generation at its start (Describe: a child of generation 2 or
	// earlier says none), its doctor refuses an owner of another one
	// (unsupported protocol), and an owner refuses a fence naming another
	// one. Generation 2 names threads, senders and references by text
	// only: the numeric ids of generation 1 are reserved in the proto.
	// Generation 3 sends updates in batches only (UpdatesResponse.updates):
	// generation 2's single update and the Start.accepts_batches that
	// chose between the two are reserved.
	Generation = 3

	// CheckFlag is the argument that runs a provider binary in check mode:
	// it validates the settings on stdin and exits, serving nothing.
	CheckFlag = "--check"

	// ProbeFlag runs a provider binary in probe mode: check mode, then
	// one look at the platform with those settings (the token accepted,
	// the chat usable) if the provider can take one; it exits as check
	// mode does, serving nothing. supervisord --check-config --online
	// runs it; a start never does.
	ProbeFlag = "--probe"

	// Keys of the settings object on the child's stdin that the supervisor
	// sets: the provider name it configured, the bearer secret of this
	// incarnation, and the directory the child may keep state in.
	SettingsNameKey     = "name"
	SettingsSecretKey   = "secret"
	SettingsStateDirKey = "state_dir"
)
