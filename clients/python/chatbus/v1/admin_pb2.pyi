from buf.validate import validate_pb2 as _validate_pb2
from chatbus.v1 import types_pb2 as _types_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

CONFIG_CHANGE_ACTION_APPLIED: ConfigChangeAction
CONFIG_CHANGE_ACTION_FAILED: ConfigChangeAction
CONFIG_CHANGE_ACTION_NEEDS_RESTART: ConfigChangeAction
CONFIG_CHANGE_ACTION_RESTARTED_PROVIDER: ConfigChangeAction
CONFIG_CHANGE_ACTION_STARTED: ConfigChangeAction
CONFIG_CHANGE_ACTION_STOPPED: ConfigChangeAction
CONFIG_CHANGE_ACTION_UNSPECIFIED: ConfigChangeAction
DEAD_LETTER_CAUSE_CONVERSION: DeadLetterCause
DEAD_LETTER_CAUSE_JOURNAL: DeadLetterCause
DEAD_LETTER_CAUSE_UNSPECIFIED: DeadLetterCause
DESCRIPTOR: _descriptor.FileDescriptor
EVENT_KIND_AUTH_REFUSED: EventKind
EVENT_KIND_BINDING_CHANGED: EventKind
EVENT_KIND_BINDING_FAILED: EventKind
EVENT_KIND_CLUSTER_FENCED: EventKind
EVENT_KIND_CLUSTER_LEADERSHIP_LOST: EventKind
EVENT_KIND_CLUSTER_LEADER_ELECTED: EventKind
EVENT_KIND_CLUSTER_MEMBER_JOINED: EventKind
EVENT_KIND_CLUSTER_MEMBER_LEFT: EventKind
EVENT_KIND_CLUSTER_RELAY_FOLLOWED: EventKind
EVENT_KIND_CONFIG_REFUSED: EventKind
EVENT_KIND_CONFIG_RELOADED: EventKind
EVENT_KIND_CONTROL_COMMAND: EventKind
EVENT_KIND_CONTROL_INTERRUPTED: EventKind
EVENT_KIND_CONTROL_NOT_ALLOWED: EventKind
EVENT_KIND_DEAD_LETTER_RESOLVED: EventKind
EVENT_KIND_DOCTOR: EventKind
EVENT_KIND_EVENTS_DROPPED: EventKind
EVENT_KIND_FOLLOWER_DELIVERY_FAILED: EventKind
EVENT_KIND_FOLLOWER_DELIVERY_HELD: EventKind
EVENT_KIND_FOLLOWER_PRUNED: EventKind
EVENT_KIND_FOLLOWER_REGISTERED: EventKind
EVENT_KIND_FOLLOWER_REPLACED: EventKind
EVENT_KIND_FOLLOWER_UNREGISTERED: EventKind
EVENT_KIND_FOLLOWER_WAY_IN: EventKind
EVENT_KIND_LAUNCH_ENDED: EventKind
EVENT_KIND_LAUNCH_STARTED: EventKind
EVENT_KIND_LAUNCH_STOPPED: EventKind
EVENT_KIND_PROVIDER_EXITED: EventKind
EVENT_KIND_PROVIDER_FATAL: EventKind
EVENT_KIND_PROVIDER_HEALTH: EventKind
EVENT_KIND_PROVIDER_STARTED: EventKind
EVENT_KIND_RECONCILED: EventKind
EVENT_KIND_SUPERVISOR_STARTED: EventKind
EVENT_KIND_SUPERVISOR_STOPPING: EventKind
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_UPDATES_DROPPED: EventKind
EVENT_KIND_UPDATE_DEAD_LETTERED: EventKind
EVENT_KIND_VOICE_TRANSCRIBED: EventKind
PROVIDER_STATE_BACKOFF: ProviderState
PROVIDER_STATE_FATAL: ProviderState
PROVIDER_STATE_RUNNING: ProviderState
PROVIDER_STATE_STARTING: ProviderState
PROVIDER_STATE_STOPPED: ProviderState
PROVIDER_STATE_UNSPECIFIED: ProviderState

class BindingInfo(_message.Message):
    __slots__ = ["binding", "created_at", "journal", "last_action", "last_error", "live", "owner_kind", "updated_at"]
    BINDING_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    JOURNAL_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTION_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    OWNER_KIND_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    binding: _types_pb2.Binding
    created_at: _timestamp_pb2.Timestamp
    journal: JournalStats
    last_action: str
    last_error: str
    live: bool
    owner_kind: str
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, binding: _Optional[_Union[_types_pb2.Binding, _Mapping]] = ..., owner_kind: _Optional[str] = ..., last_action: _Optional[str] = ..., last_error: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., live: bool = ..., journal: _Optional[_Union[JournalStats, _Mapping]] = ...) -> None: ...

class ConfigChange(_message.Message):
    __slots__ = ["action", "detail", "key", "new_value", "old_value"]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    NEW_VALUE_FIELD_NUMBER: _ClassVar[int]
    OLD_VALUE_FIELD_NUMBER: _ClassVar[int]
    action: ConfigChangeAction
    detail: str
    key: str
    new_value: str
    old_value: str
    def __init__(self, key: _Optional[str] = ..., action: _Optional[_Union[ConfigChangeAction, str]] = ..., old_value: _Optional[str] = ..., new_value: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class DeadLetter(_message.Message):
    __slots__ = ["cause", "error", "id", "kind", "payload", "platform_update_id", "provider", "received_at", "retries"]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_UPDATE_ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    cause: DeadLetterCause
    error: str
    id: str
    kind: _types_pb2.UpdateKind
    payload: bytes
    platform_update_id: int
    provider: str
    received_at: _timestamp_pb2.Timestamp
    retries: int
    def __init__(self, provider: _Optional[str] = ..., id: _Optional[str] = ..., platform_update_id: _Optional[int] = ..., kind: _Optional[_Union[_types_pb2.UpdateKind, str]] = ..., error: _Optional[str] = ..., payload: _Optional[bytes] = ..., received_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., retries: _Optional[int] = ..., cause: _Optional[_Union[DeadLetterCause, str]] = ...) -> None: ...

class DropDeadLetterRequest(_message.Message):
    __slots__ = ["id", "provider"]
    ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    id: str
    provider: str
    def __init__(self, provider: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class DropDeadLetterResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Event(_message.Message):
    __slots__ = ["attrs", "id", "instance_id", "kind", "message", "time"]
    class AttrsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ATTRS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    attrs: _containers.ScalarMap[str, str]
    id: int
    instance_id: str
    kind: EventKind
    message: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[int] = ..., time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., kind: _Optional[_Union[EventKind, str]] = ..., message: _Optional[str] = ..., instance_id: _Optional[str] = ..., attrs: _Optional[_Mapping[str, str]] = ...) -> None: ...

class GetInfoRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetInfoResponse(_message.Message):
    __slots__ = ["config_path", "console_url", "follower_count", "pid", "profile", "socket_path", "started_at", "state_dir", "version"]
    CONFIG_PATH_FIELD_NUMBER: _ClassVar[int]
    CONSOLE_URL_FIELD_NUMBER: _ClassVar[int]
    FOLLOWER_COUNT_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    SOCKET_PATH_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_DIR_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    config_path: str
    console_url: str
    follower_count: int
    pid: int
    profile: str
    socket_path: str
    started_at: _timestamp_pb2.Timestamp
    state_dir: str
    version: str
    def __init__(self, version: _Optional[str] = ..., pid: _Optional[int] = ..., profile: _Optional[str] = ..., socket_path: _Optional[str] = ..., state_dir: _Optional[str] = ..., started_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., follower_count: _Optional[int] = ..., config_path: _Optional[str] = ..., console_url: _Optional[str] = ...) -> None: ...

class JournalStats(_message.Message):
    __slots__ = ["acked_through", "bytes", "dropped", "last_seq", "oldest_at", "unacked"]
    ACKED_THROUGH_FIELD_NUMBER: _ClassVar[int]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    OLDEST_AT_FIELD_NUMBER: _ClassVar[int]
    UNACKED_FIELD_NUMBER: _ClassVar[int]
    acked_through: int
    bytes: int
    dropped: int
    last_seq: int
    oldest_at: _timestamp_pb2.Timestamp
    unacked: int
    def __init__(self, unacked: _Optional[int] = ..., bytes: _Optional[int] = ..., acked_through: _Optional[int] = ..., last_seq: _Optional[int] = ..., dropped: _Optional[int] = ..., oldest_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListBindingsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListBindingsResponse(_message.Message):
    __slots__ = ["bindings"]
    BINDINGS_FIELD_NUMBER: _ClassVar[int]
    bindings: _containers.RepeatedCompositeFieldContainer[BindingInfo]
    def __init__(self, bindings: _Optional[_Iterable[_Union[BindingInfo, _Mapping]]] = ...) -> None: ...

class ListDeadLettersRequest(_message.Message):
    __slots__ = ["provider"]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    provider: str
    def __init__(self, provider: _Optional[str] = ...) -> None: ...

class ListDeadLettersResponse(_message.Message):
    __slots__ = ["dead_letters"]
    DEAD_LETTERS_FIELD_NUMBER: _ClassVar[int]
    dead_letters: _containers.RepeatedCompositeFieldContainer[DeadLetter]
    def __init__(self, dead_letters: _Optional[_Iterable[_Union[DeadLetter, _Mapping]]] = ...) -> None: ...

class ListEventsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListEventsResponse(_message.Message):
    __slots__ = ["events"]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class ListFollowersRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListFollowersResponse(_message.Message):
    __slots__ = ["followers"]
    FOLLOWERS_FIELD_NUMBER: _ClassVar[int]
    followers: _containers.RepeatedCompositeFieldContainer[_types_pb2.Follower]
    def __init__(self, followers: _Optional[_Iterable[_Union[_types_pb2.Follower, _Mapping]]] = ...) -> None: ...

class ListProvidersRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListProvidersResponse(_message.Message):
    __slots__ = ["providers"]
    PROVIDERS_FIELD_NUMBER: _ClassVar[int]
    providers: _containers.RepeatedCompositeFieldContainer[ProviderInfo]
    def __init__(self, providers: _Optional[_Iterable[_Union[ProviderInfo, _Mapping]]] = ...) -> None: ...

class ListUpdatesRequest(_message.Message):
    __slots__ = ["binding", "limit", "unrouted"]
    BINDING_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    UNROUTED_FIELD_NUMBER: _ClassVar[int]
    binding: str
    limit: int
    unrouted: bool
    def __init__(self, binding: _Optional[str] = ..., unrouted: bool = ..., limit: _Optional[int] = ...) -> None: ...

class ListUpdatesResponse(_message.Message):
    __slots__ = ["stats", "updates"]
    STATS_FIELD_NUMBER: _ClassVar[int]
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    stats: JournalStats
    updates: _containers.RepeatedCompositeFieldContainer[_types_pb2.Update]
    def __init__(self, updates: _Optional[_Iterable[_Union[_types_pb2.Update, _Mapping]]] = ..., stats: _Optional[_Union[JournalStats, _Mapping]] = ...) -> None: ...

class OutboundQueue(_message.Message):
    __slots__ = ["ambient", "coalesced", "edits", "limits", "messages", "oldest_wait", "prompts", "queued", "rate_limited", "refused", "sent", "skipped"]
    AMBIENT_FIELD_NUMBER: _ClassVar[int]
    COALESCED_FIELD_NUMBER: _ClassVar[int]
    EDITS_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OLDEST_WAIT_FIELD_NUMBER: _ClassVar[int]
    PROMPTS_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMITED_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    SENT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    ambient: int
    coalesced: int
    edits: int
    limits: _containers.RepeatedCompositeFieldContainer[RateLimitInfo]
    messages: int
    oldest_wait: _duration_pb2.Duration
    prompts: int
    queued: int
    rate_limited: int
    refused: int
    sent: int
    skipped: int
    def __init__(self, queued: _Optional[int] = ..., prompts: _Optional[int] = ..., messages: _Optional[int] = ..., edits: _Optional[int] = ..., ambient: _Optional[int] = ..., oldest_wait: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., sent: _Optional[int] = ..., coalesced: _Optional[int] = ..., skipped: _Optional[int] = ..., rate_limited: _Optional[int] = ..., refused: _Optional[int] = ..., limits: _Optional[_Iterable[_Union[RateLimitInfo, _Mapping]]] = ...) -> None: ...

class ProviderInfo(_message.Message):
    __slots__ = ["account", "attached", "default", "dropped_not_allowed", "forum_chat_id", "health_detail", "health_since", "ingested", "last_error", "last_exit", "name", "outbound", "pid", "platform", "restarts", "serving", "since", "state", "stderr_tail", "web_url"]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    ATTACHED_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FIELD_NUMBER: _ClassVar[int]
    DROPPED_NOT_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    FORUM_CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    HEALTH_DETAIL_FIELD_NUMBER: _ClassVar[int]
    HEALTH_SINCE_FIELD_NUMBER: _ClassVar[int]
    INGESTED_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LAST_EXIT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OUTBOUND_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    RESTARTS_FIELD_NUMBER: _ClassVar[int]
    SERVING_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STDERR_TAIL_FIELD_NUMBER: _ClassVar[int]
    WEB_URL_FIELD_NUMBER: _ClassVar[int]
    account: str
    attached: int
    default: bool
    dropped_not_allowed: int
    forum_chat_id: int
    health_detail: str
    health_since: _timestamp_pb2.Timestamp
    ingested: int
    last_error: str
    last_exit: str
    name: str
    outbound: OutboundQueue
    pid: int
    platform: str
    restarts: int
    serving: bool
    since: _timestamp_pb2.Timestamp
    state: ProviderState
    stderr_tail: _containers.RepeatedScalarFieldContainer[str]
    web_url: str
    def __init__(self, name: _Optional[str] = ..., state: _Optional[_Union[ProviderState, str]] = ..., pid: _Optional[int] = ..., since: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., restarts: _Optional[int] = ..., last_exit: _Optional[str] = ..., last_error: _Optional[str] = ..., serving: bool = ..., default: bool = ..., forum_chat_id: _Optional[int] = ..., attached: _Optional[int] = ..., ingested: _Optional[int] = ..., dropped_not_allowed: _Optional[int] = ..., platform: _Optional[str] = ..., health_detail: _Optional[str] = ..., health_since: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., stderr_tail: _Optional[_Iterable[str]] = ..., account: _Optional[str] = ..., web_url: _Optional[str] = ..., outbound: _Optional[_Union[OutboundQueue, _Mapping]] = ...) -> None: ...

class RateLimitInfo(_message.Message):
    __slots__ = ["count", "methods", "name", "per", "scope"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    METHODS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PER_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    count: int
    methods: _containers.RepeatedScalarFieldContainer[str]
    name: str
    per: _duration_pb2.Duration
    scope: str
    def __init__(self, name: _Optional[str] = ..., scope: _Optional[str] = ..., count: _Optional[int] = ..., per: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., methods: _Optional[_Iterable[str]] = ...) -> None: ...

class ReloadRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ReloadResponse(_message.Message):
    __slots__ = ["changes", "config_path", "refused"]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    CONFIG_PATH_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[ConfigChange]
    config_path: str
    refused: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, config_path: _Optional[str] = ..., refused: _Optional[_Iterable[str]] = ..., changes: _Optional[_Iterable[_Union[ConfigChange, _Mapping]]] = ...) -> None: ...

class RetryDeadLetterRequest(_message.Message):
    __slots__ = ["id", "provider"]
    ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    id: str
    provider: str
    def __init__(self, provider: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class RetryDeadLetterResponse(_message.Message):
    __slots__ = ["update"]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    update: _types_pb2.Update
    def __init__(self, update: _Optional[_Union[_types_pb2.Update, _Mapping]] = ...) -> None: ...

class ShutdownRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ShutdownResponse(_message.Message):
    __slots__ = ["pid"]
    PID_FIELD_NUMBER: _ClassVar[int]
    pid: int
    def __init__(self, pid: _Optional[int] = ...) -> None: ...

class WatchEventsRequest(_message.Message):
    __slots__ = ["kinds", "replay_recent"]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    REPLAY_RECENT_FIELD_NUMBER: _ClassVar[int]
    kinds: _containers.RepeatedScalarFieldContainer[EventKind]
    replay_recent: bool
    def __init__(self, replay_recent: bool = ..., kinds: _Optional[_Iterable[_Union[EventKind, str]]] = ...) -> None: ...

class WatchEventsResponse(_message.Message):
    __slots__ = ["event"]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: Event
    def __init__(self, event: _Optional[_Union[Event, _Mapping]] = ...) -> None: ...

class ProviderState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class DeadLetterCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ConfigChangeAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
