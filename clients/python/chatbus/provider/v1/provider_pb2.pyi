from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
ERROR_REASON_AMBIGUOUS: ErrorReason
ERROR_REASON_COMMITTED: ErrorReason
ERROR_REASON_FENCE_HELD: ErrorReason
ERROR_REASON_FENCE_MISMATCH: ErrorReason
ERROR_REASON_INVALID: ErrorReason
ERROR_REASON_NOT_ADMITTING: ErrorReason
ERROR_REASON_NOT_FOUND: ErrorReason
ERROR_REASON_NOT_PREPARED: ErrorReason
ERROR_REASON_OUT_OF_SCOPE: ErrorReason
ERROR_REASON_PERMISSION_DENIED: ErrorReason
ERROR_REASON_PLATFORM_REFUSED: ErrorReason
ERROR_REASON_PLATFORM_UNREACHABLE: ErrorReason
ERROR_REASON_PROTOCOL: ErrorReason
ERROR_REASON_PROVIDER_STOPPING: ErrorReason
ERROR_REASON_RATE_LIMITED: ErrorReason
ERROR_REASON_STREAM_ENDED: ErrorReason
ERROR_REASON_SUPERSEDED: ErrorReason
ERROR_REASON_TARGET_GONE: ErrorReason
ERROR_REASON_UNSPECIFIED: ErrorReason
LANE_AMBIENT: Lane
LANE_EDIT: Lane
LANE_MESSAGE: Lane
LANE_PROMPT: Lane
LANE_UNSPECIFIED: Lane
LIMIT_SCOPE_BOT: LimitScope
LIMIT_SCOPE_CHAT: LimitScope
LIMIT_SCOPE_THREAD: LimitScope
LIMIT_SCOPE_UNSPECIFIED: LimitScope
PHASE_COMMITTED: Phase
PHASE_IDLE: Phase
PHASE_PREPARED: Phase
PHASE_UNSPECIFIED: Phase
REFERENCE_KIND_FILE: ReferenceKind
REFERENCE_KIND_INTERACTION: ReferenceKind
REFERENCE_KIND_MESSAGE: ReferenceKind
REFERENCE_KIND_UNSPECIFIED: ReferenceKind
THREAD_STATE_CLOSED: ThreadState
THREAD_STATE_DELETED: ThreadState
THREAD_STATE_REOPENED: ThreadState
THREAD_STATE_UNSPECIFIED: ThreadState
UPDATE_KIND_CALLBACK_QUERY: UpdateKind
UPDATE_KIND_COMMAND: UpdateKind
UPDATE_KIND_EDITED_MESSAGE: UpdateKind
UPDATE_KIND_MESSAGE: UpdateKind
UPDATE_KIND_REACTION: UpdateKind
UPDATE_KIND_UNSPECIFIED: UpdateKind

class AnswerParams(_message.Message):
    __slots__ = ["interaction_id", "text"]
    INTERACTION_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    interaction_id: str
    text: str
    def __init__(self, interaction_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class AttachRequest(_message.Message):
    __slots__ = ["instance_id", "target"]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    instance_id: str
    target: Target
    def __init__(self, instance_id: _Optional[str] = ..., target: _Optional[_Union[Target, _Mapping]] = ...) -> None: ...

class AttachResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Audio(_message.Message):
    __slots__ = ["duration_seconds", "file_id", "file_name", "mime_type", "size", "voice"]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    VOICE_FIELD_NUMBER: _ClassVar[int]
    duration_seconds: int
    file_id: str
    file_name: str
    mime_type: str
    size: int
    voice: bool
    def __init__(self, file_id: _Optional[str] = ..., mime_type: _Optional[str] = ..., duration_seconds: _Optional[int] = ..., size: _Optional[int] = ..., file_name: _Optional[str] = ..., voice: bool = ...) -> None: ...

class Button(_message.Message):
    __slots__ = ["data", "label"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    data: str
    label: str
    def __init__(self, label: _Optional[str] = ..., data: _Optional[str] = ...) -> None: ...

class CallRequest(_message.Message):
    __slots__ = ["idempotency_key", "method", "params_json", "target"]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    PARAMS_JSON_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    idempotency_key: str
    method: str
    params_json: bytes
    target: Target
    def __init__(self, method: _Optional[str] = ..., params_json: _Optional[bytes] = ..., idempotency_key: _Optional[str] = ..., target: _Optional[_Union[Target, _Mapping]] = ...) -> None: ...

class CallResponse(_message.Message):
    __slots__ = ["pause", "references", "result_json"]
    PAUSE_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    pause: Pause
    references: References
    result_json: bytes
    def __init__(self, result_json: _Optional[bytes] = ..., references: _Optional[_Union[References, _Mapping]] = ..., pause: _Optional[_Union[Pause, _Mapping]] = ...) -> None: ...

class CancelRequest(_message.Message):
    __slots__ = ["fence"]
    FENCE_FIELD_NUMBER: _ClassVar[int]
    fence: Fence
    def __init__(self, fence: _Optional[_Union[Fence, _Mapping]] = ...) -> None: ...

class CancelResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class CloseTargetRequest(_message.Message):
    __slots__ = ["target"]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    target: Target
    def __init__(self, target: _Optional[_Union[Target, _Mapping]] = ...) -> None: ...

class CloseTargetResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class CommitRequest(_message.Message):
    __slots__ = ["fence"]
    FENCE_FIELD_NUMBER: _ClassVar[int]
    fence: Fence
    def __init__(self, fence: _Optional[_Union[Fence, _Mapping]] = ...) -> None: ...

class CommitResponse(_message.Message):
    __slots__ = ["occupancy"]
    OCCUPANCY_FIELD_NUMBER: _ClassVar[int]
    occupancy: Occupancy
    def __init__(self, occupancy: _Optional[_Union[Occupancy, _Mapping]] = ...) -> None: ...

class ConvertUpdateRequest(_message.Message):
    __slots__ = ["dedup_id", "kind", "payload"]
    DEDUP_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    dedup_id: str
    kind: UpdateKind
    payload: bytes
    def __init__(self, payload: _Optional[bytes] = ..., kind: _Optional[_Union[UpdateKind, str]] = ..., dedup_id: _Optional[str] = ...) -> None: ...

class ConvertUpdateResponse(_message.Message):
    __slots__ = ["update"]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    update: Update
    def __init__(self, update: _Optional[_Union[Update, _Mapping]] = ...) -> None: ...

class DescribeRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DescribeResponse(_message.Message):
    __slots__ = ["command_prefix", "generation", "limits", "max_text_chars", "methods", "platform", "thread_link", "verbs", "web_url"]
    COMMAND_PREFIX_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    MAX_TEXT_CHARS_FIELD_NUMBER: _ClassVar[int]
    METHODS_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    THREAD_LINK_FIELD_NUMBER: _ClassVar[int]
    VERBS_FIELD_NUMBER: _ClassVar[int]
    WEB_URL_FIELD_NUMBER: _ClassVar[int]
    command_prefix: str
    generation: int
    limits: _containers.RepeatedCompositeFieldContainer[RateLimit]
    max_text_chars: int
    methods: _containers.RepeatedCompositeFieldContainer[Method]
    platform: str
    thread_link: str
    verbs: _containers.RepeatedCompositeFieldContainer[Verb]
    web_url: str
    def __init__(self, platform: _Optional[str] = ..., methods: _Optional[_Iterable[_Union[Method, _Mapping]]] = ..., max_text_chars: _Optional[int] = ..., web_url: _Optional[str] = ..., verbs: _Optional[_Iterable[_Union[Verb, _Mapping]]] = ..., limits: _Optional[_Iterable[_Union[RateLimit, _Mapping]]] = ..., command_prefix: _Optional[str] = ..., thread_link: _Optional[str] = ..., generation: _Optional[int] = ...) -> None: ...

class DetachRequest(_message.Message):
    __slots__ = ["instance_id"]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    instance_id: str
    def __init__(self, instance_id: _Optional[str] = ...) -> None: ...

class DetachResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DownloadFileRequest(_message.Message):
    __slots__ = ["file_id"]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    file_id: str
    def __init__(self, file_id: _Optional[str] = ...) -> None: ...

class DownloadFileResponse(_message.Message):
    __slots__ = ["chunk", "file_path", "size"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    file_path: str
    size: int
    def __init__(self, chunk: _Optional[bytes] = ..., size: _Optional[int] = ..., file_path: _Optional[str] = ...) -> None: ...

class DraftParams(_message.Message):
    __slots__ = ["stream_id", "text"]
    STREAM_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    stream_id: str
    text: str
    def __init__(self, stream_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class EditParams(_message.Message):
    __slots__ = ["buttons", "message_id", "text"]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    buttons: _containers.RepeatedCompositeFieldContainer[Button]
    message_id: str
    text: str
    def __init__(self, message_id: _Optional[str] = ..., text: _Optional[str] = ..., buttons: _Optional[_Iterable[_Union[Button, _Mapping]]] = ...) -> None: ...

class Fence(_message.Message):
    __slots__ = ["generation", "incarnation", "owner_id", "request_id"]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    INCARNATION_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    generation: int
    incarnation: Incarnation
    owner_id: str
    request_id: str
    def __init__(self, request_id: _Optional[str] = ..., owner_id: _Optional[str] = ..., generation: _Optional[int] = ..., incarnation: _Optional[_Union[Incarnation, _Mapping]] = ...) -> None: ...

class IdentifyRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class IdentifyResponse(_message.Message):
    __slots__ = ["account", "generation", "incarnation", "name", "owner_id"]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    INCARNATION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    account: str
    generation: int
    incarnation: Incarnation
    name: str
    owner_id: str
    def __init__(self, name: _Optional[str] = ..., owner_id: _Optional[str] = ..., generation: _Optional[int] = ..., incarnation: _Optional[_Union[Incarnation, _Mapping]] = ..., account: _Optional[str] = ...) -> None: ...

class Incarnation(_message.Message):
    __slots__ = ["pid", "start_time"]
    PID_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    pid: int
    start_time: int
    def __init__(self, pid: _Optional[int] = ..., start_time: _Optional[int] = ...) -> None: ...

class Method(_message.Message):
    __slots__ = ["idempotent", "lane", "lasts", "name", "overwrites", "params"]
    IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    LANE_FIELD_NUMBER: _ClassVar[int]
    LASTS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OVERWRITES_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    idempotent: bool
    lane: Lane
    lasts: _duration_pb2.Duration
    name: str
    overwrites: bool
    params: _containers.RepeatedCompositeFieldContainer[MethodParam]
    def __init__(self, name: _Optional[str] = ..., params: _Optional[_Iterable[_Union[MethodParam, _Mapping]]] = ..., idempotent: bool = ..., lane: _Optional[_Union[Lane, str]] = ..., overwrites: bool = ..., lasts: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class MethodParam(_message.Message):
    __slots__ = ["kind", "name", "required"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    kind: ReferenceKind
    name: str
    required: bool
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[ReferenceKind, str]] = ..., required: bool = ...) -> None: ...

class Occupancy(_message.Message):
    __slots__ = ["attached", "cleanup", "inbound", "inflight", "outbound"]
    ATTACHED_FIELD_NUMBER: _ClassVar[int]
    CLEANUP_FIELD_NUMBER: _ClassVar[int]
    INBOUND_FIELD_NUMBER: _ClassVar[int]
    INFLIGHT_FIELD_NUMBER: _ClassVar[int]
    OUTBOUND_FIELD_NUMBER: _ClassVar[int]
    attached: int
    cleanup: int
    inbound: int
    inflight: int
    outbound: int
    def __init__(self, attached: _Optional[int] = ..., inflight: _Optional[int] = ..., inbound: _Optional[int] = ..., outbound: _Optional[int] = ..., cleanup: _Optional[int] = ...) -> None: ...

class Pause(_message.Message):
    __slots__ = ["after", "method_only", "scope"]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    METHOD_ONLY_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    after: _duration_pb2.Duration
    method_only: bool
    scope: LimitScope
    def __init__(self, scope: _Optional[_Union[LimitScope, str]] = ..., after: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., method_only: bool = ...) -> None: ...

class PrepareRequest(_message.Message):
    __slots__ = ["fence", "lease"]
    FENCE_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    fence: Fence
    lease: _duration_pb2.Duration
    def __init__(self, fence: _Optional[_Union[Fence, _Mapping]] = ..., lease: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class PrepareResponse(_message.Message):
    __slots__ = ["lease_expires_at", "occupancy"]
    LEASE_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    OCCUPANCY_FIELD_NUMBER: _ClassVar[int]
    lease_expires_at: _timestamp_pb2.Timestamp
    occupancy: Occupancy
    def __init__(self, occupancy: _Optional[_Union[Occupancy, _Mapping]] = ..., lease_expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ProvisionTargetRequest(_message.Message):
    __slots__ = ["chat", "name", "reuse"]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REUSE_FIELD_NUMBER: _ClassVar[int]
    chat: str
    name: str
    reuse: Target
    def __init__(self, name: _Optional[str] = ..., chat: _Optional[str] = ..., reuse: _Optional[_Union[Target, _Mapping]] = ...) -> None: ...

class ProvisionTargetResponse(_message.Message):
    __slots__ = ["name", "reused", "target"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REUSED_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    name: str
    reused: bool
    target: Target
    def __init__(self, name: _Optional[str] = ..., target: _Optional[_Union[Target, _Mapping]] = ..., reused: bool = ...) -> None: ...

class RateLimit(_message.Message):
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
    scope: LimitScope
    def __init__(self, name: _Optional[str] = ..., scope: _Optional[_Union[LimitScope, str]] = ..., count: _Optional[int] = ..., per: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., methods: _Optional[_Iterable[str]] = ...) -> None: ...

class ReactParams(_message.Message):
    __slots__ = ["emoji", "message_id"]
    EMOJI_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    emoji: str
    message_id: str
    def __init__(self, message_id: _Optional[str] = ..., emoji: _Optional[str] = ...) -> None: ...

class Reference(_message.Message):
    __slots__ = ["id", "kind"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: ReferenceKind
    def __init__(self, kind: _Optional[_Union[ReferenceKind, str]] = ..., id: _Optional[str] = ...) -> None: ...

class References(_message.Message):
    __slots__ = ["items"]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Reference]
    def __init__(self, items: _Optional[_Iterable[_Union[Reference, _Mapping]]] = ...) -> None: ...

class SendParams(_message.Message):
    __slots__ = ["buttons", "prompt", "reply_to", "text"]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    buttons: _containers.RepeatedCompositeFieldContainer[Button]
    prompt: bool
    reply_to: str
    text: str
    def __init__(self, text: _Optional[str] = ..., reply_to: _Optional[str] = ..., buttons: _Optional[_Iterable[_Union[Button, _Mapping]]] = ..., prompt: bool = ...) -> None: ...

class StatusRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ["admitting", "health_detail", "lease_expires_at", "occupancy", "phase", "request_id"]
    ADMITTING_FIELD_NUMBER: _ClassVar[int]
    HEALTH_DETAIL_FIELD_NUMBER: _ClassVar[int]
    LEASE_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    OCCUPANCY_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    admitting: bool
    health_detail: str
    lease_expires_at: _timestamp_pb2.Timestamp
    occupancy: Occupancy
    phase: Phase
    request_id: str
    def __init__(self, phase: _Optional[_Union[Phase, str]] = ..., admitting: bool = ..., occupancy: _Optional[_Union[Occupancy, _Mapping]] = ..., lease_expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., request_id: _Optional[str] = ..., health_detail: _Optional[str] = ...) -> None: ...

class Target(_message.Message):
    __slots__ = ["chat", "name", "thread"]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    chat: str
    name: str
    thread: str
    def __init__(self, chat: _Optional[str] = ..., thread: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class TypingParams(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Update(_message.Message):
    __slots__ = ["allowed", "audio", "chat", "conversion_error", "cursor", "dedup_id", "kind", "payload", "received_at", "references", "sender", "sender_name", "text", "thread", "thread_state", "update_id"]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    AUDIO_FIELD_NUMBER: _ClassVar[int]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    CONVERSION_ERROR_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    DEDUP_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    SENDER_NAME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    THREAD_STATE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_ID_FIELD_NUMBER: _ClassVar[int]
    allowed: bool
    audio: Audio
    chat: str
    conversion_error: str
    cursor: bytes
    dedup_id: str
    kind: UpdateKind
    payload: bytes
    received_at: _timestamp_pb2.Timestamp
    references: References
    sender: str
    sender_name: str
    text: str
    thread: str
    thread_state: ThreadState
    update_id: int
    def __init__(self, update_id: _Optional[int] = ..., kind: _Optional[_Union[UpdateKind, str]] = ..., text: _Optional[str] = ..., payload: _Optional[bytes] = ..., received_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., allowed: bool = ..., references: _Optional[_Union[References, _Mapping]] = ..., chat: _Optional[str] = ..., thread: _Optional[str] = ..., sender: _Optional[str] = ..., dedup_id: _Optional[str] = ..., cursor: _Optional[bytes] = ..., sender_name: _Optional[str] = ..., thread_state: _Optional[_Union[ThreadState, str]] = ..., conversion_error: _Optional[str] = ..., audio: _Optional[_Union[Audio, _Mapping]] = ...) -> None: ...

class UpdatesRequest(_message.Message):
    __slots__ = ["ack", "start"]
    class Ack(_message.Message):
        __slots__ = ["update_id"]
        UPDATE_ID_FIELD_NUMBER: _ClassVar[int]
        update_id: int
        def __init__(self, update_id: _Optional[int] = ...) -> None: ...
    class Start(_message.Message):
        __slots__ = ["state"]
        STATE_FIELD_NUMBER: _ClassVar[int]
        state: bytes
        def __init__(self, state: _Optional[bytes] = ...) -> None: ...
    ACK_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    ack: UpdatesRequest.Ack
    start: UpdatesRequest.Start
    def __init__(self, start: _Optional[_Union[UpdatesRequest.Start, _Mapping]] = ..., ack: _Optional[_Union[UpdatesRequest.Ack, _Mapping]] = ...) -> None: ...

class UpdatesResponse(_message.Message):
    __slots__ = ["updates"]
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    updates: _containers.RepeatedCompositeFieldContainer[Update]
    def __init__(self, updates: _Optional[_Iterable[_Union[Update, _Mapping]]] = ...) -> None: ...

class UploadFileRequest(_message.Message):
    __slots__ = ["chunk", "header"]
    class Header(_message.Message):
        __slots__ = ["caption", "filename", "kind", "target"]
        CAPTION_FIELD_NUMBER: _ClassVar[int]
        FILENAME_FIELD_NUMBER: _ClassVar[int]
        KIND_FIELD_NUMBER: _ClassVar[int]
        TARGET_FIELD_NUMBER: _ClassVar[int]
        caption: str
        filename: str
        kind: str
        target: Target
        def __init__(self, filename: _Optional[str] = ..., caption: _Optional[str] = ..., kind: _Optional[str] = ..., target: _Optional[_Union[Target, _Mapping]] = ...) -> None: ...
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    header: UploadFileRequest.Header
    def __init__(self, header: _Optional[_Union[UploadFileRequest.Header, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class UploadFileResponse(_message.Message):
    __slots__ = ["references", "result_json"]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    references: References
    result_json: bytes
    def __init__(self, result_json: _Optional[bytes] = ..., references: _Optional[_Union[References, _Mapping]] = ...) -> None: ...

class Verb(_message.Message):
    __slots__ = ["idempotent", "lasts", "name"]
    IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    LASTS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    idempotent: bool
    lasts: _duration_pb2.Duration
    name: str
    def __init__(self, name: _Optional[str] = ..., idempotent: bool = ..., lasts: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class VerbResult(_message.Message):
    __slots__ = ["message_ids"]
    MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    message_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, message_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class WatchOccupancyRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class WatchOccupancyResponse(_message.Message):
    __slots__ = ["admitting", "occupancy", "phase"]
    ADMITTING_FIELD_NUMBER: _ClassVar[int]
    OCCUPANCY_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    admitting: bool
    occupancy: Occupancy
    phase: Phase
    def __init__(self, occupancy: _Optional[_Union[Occupancy, _Mapping]] = ..., admitting: bool = ..., phase: _Optional[_Union[Phase, str]] = ...) -> None: ...

class LimitScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Lane(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ReferenceKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class UpdateKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ThreadState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
