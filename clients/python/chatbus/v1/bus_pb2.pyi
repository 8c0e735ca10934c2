from buf.validate import validate_pb2 as _validate_pb2
from chatbus.v1 import types_pb2 as _types_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DELIVERY_STATUS_DENIED: DeliveryStatus
DELIVERY_STATUS_DROPPED: DeliveryStatus
DELIVERY_STATUS_EXPIRED: DeliveryStatus
DELIVERY_STATUS_HELD: DeliveryStatus
DELIVERY_STATUS_REFUSED: DeliveryStatus
DELIVERY_STATUS_UNSPECIFIED: DeliveryStatus
DESCRIPTOR: _descriptor.FileDescriptor
NOTICE_PROVIDER_NOT_SERVING: Notice
NOTICE_SUPERVISOR_DRAINING: Notice
NOTICE_THREAD_REPLACED: Notice
NOTICE_UNSPECIFIED: Notice
SUSPEND_REASON_SESSION_REPLACEMENT: SuspendReason
SUSPEND_REASON_UNSPECIFIED: SuspendReason

class AckRequest(_message.Message):
    __slots__ = ["seq", "session"]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    seq: int
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., seq: _Optional[int] = ...) -> None: ...

class AckResponse(_message.Message):
    __slots__ = ["acked_through"]
    ACKED_THROUGH_FIELD_NUMBER: _ClassVar[int]
    acked_through: int
    def __init__(self, acked_through: _Optional[int] = ...) -> None: ...

class AnswerInteractionRequest(_message.Message):
    __slots__ = ["idempotency_key", "interaction_id", "session", "text"]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    INTERACTION_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    idempotency_key: str
    interaction_id: str
    session: Session
    text: str
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., interaction_id: _Optional[str] = ..., text: _Optional[str] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class AnswerInteractionResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class CallRequest(_message.Message):
    __slots__ = ["idempotency_key", "method", "params_json", "session"]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    PARAMS_JSON_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    idempotency_key: str
    method: str
    params_json: bytes
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., method: _Optional[str] = ..., params_json: _Optional[bytes] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class CallResponse(_message.Message):
    __slots__ = ["references", "result_json"]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    references: _containers.RepeatedCompositeFieldContainer[_types_pb2.Reference]
    result_json: bytes
    def __init__(self, result_json: _Optional[bytes] = ..., references: _Optional[_Iterable[_Union[_types_pb2.Reference, _Mapping]]] = ...) -> None: ...

class Capabilities(_message.Message):
    __slots__ = ["max_text_chars", "methods", "platform", "verbs"]
    MAX_TEXT_CHARS_FIELD_NUMBER: _ClassVar[int]
    METHODS_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    VERBS_FIELD_NUMBER: _ClassVar[int]
    max_text_chars: int
    methods: _containers.RepeatedCompositeFieldContainer[Method]
    platform: str
    verbs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, platform: _Optional[str] = ..., methods: _Optional[_Iterable[_Union[Method, _Mapping]]] = ..., max_text_chars: _Optional[int] = ..., verbs: _Optional[_Iterable[str]] = ...) -> None: ...

class DeliveryReport(_message.Message):
    __slots__ = ["detail", "seq", "status"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    detail: str
    seq: int
    status: DeliveryStatus
    def __init__(self, status: _Optional[_Union[DeliveryStatus, str]] = ..., seq: _Optional[int] = ..., detail: _Optional[str] = ...) -> None: ...

class DownloadFileRequest(_message.Message):
    __slots__ = ["file_id", "session"]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    file_id: str
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., file_id: _Optional[str] = ...) -> None: ...

class DownloadFileResponse(_message.Message):
    __slots__ = ["chunk", "file_path", "size"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    file_path: str
    size: int
    def __init__(self, chunk: _Optional[bytes] = ..., size: _Optional[int] = ..., file_path: _Optional[str] = ...) -> None: ...

class EditMessageRequest(_message.Message):
    __slots__ = ["buttons", "idempotency_key", "message_id", "session", "text"]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    buttons: _containers.RepeatedCompositeFieldContainer[_types_pb2.Button]
    idempotency_key: str
    message_id: str
    session: Session
    text: str
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., message_id: _Optional[str] = ..., text: _Optional[str] = ..., buttons: _Optional[_Iterable[_Union[_types_pb2.Button, _Mapping]]] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class EditMessageResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class HeartbeatRequest(_message.Message):
    __slots__ = ["delivery_reports", "session", "way_in", "way_in_detail"]
    DELIVERY_REPORTS_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    WAY_IN_DETAIL_FIELD_NUMBER: _ClassVar[int]
    WAY_IN_FIELD_NUMBER: _ClassVar[int]
    delivery_reports: _containers.RepeatedCompositeFieldContainer[DeliveryReport]
    session: Session
    way_in: _types_pb2.WayIn
    way_in_detail: str
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., way_in: _Optional[_Union[_types_pb2.WayIn, str]] = ..., way_in_detail: _Optional[str] = ..., delivery_reports: _Optional[_Iterable[_Union[DeliveryReport, _Mapping]]] = ...) -> None: ...

class HeartbeatResponse(_message.Message):
    __slots__ = ["binding", "notices", "provider_detail", "server_time"]
    BINDING_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_DETAIL_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    binding: _types_pb2.Binding
    notices: _containers.RepeatedScalarFieldContainer[Notice]
    provider_detail: str
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, notices: _Optional[_Iterable[_Union[Notice, str]]] = ..., server_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., binding: _Optional[_Union[_types_pb2.Binding, _Mapping]] = ..., provider_detail: _Optional[str] = ...) -> None: ...

class Method(_message.Message):
    __slots__ = ["idempotent", "name", "params"]
    IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    idempotent: bool
    name: str
    params: _containers.RepeatedCompositeFieldContainer[MethodParam]
    def __init__(self, name: _Optional[str] = ..., params: _Optional[_Iterable[_Union[MethodParam, _Mapping]]] = ..., idempotent: bool = ...) -> None: ...

class MethodParam(_message.Message):
    __slots__ = ["kind", "name", "required"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    kind: _types_pb2.ReferenceKind
    name: str
    required: bool
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.ReferenceKind, str]] = ..., required: bool = ...) -> None: ...

class ReactRequest(_message.Message):
    __slots__ = ["emoji", "idempotency_key", "message_id", "session"]
    EMOJI_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    emoji: str
    idempotency_key: str
    message_id: str
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., message_id: _Optional[str] = ..., emoji: _Optional[str] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class ReactResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RegisterRequest(_message.Message):
    __slots__ = ["agent", "cwd", "handoff_token", "instance_id", "launch_id", "pid", "previous_target", "profile_key", "provider", "thread_name", "way_in", "way_in_detail"]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    HANDOFF_TOKEN_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    LAUNCH_ID_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_TARGET_FIELD_NUMBER: _ClassVar[int]
    PROFILE_KEY_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    THREAD_NAME_FIELD_NUMBER: _ClassVar[int]
    WAY_IN_DETAIL_FIELD_NUMBER: _ClassVar[int]
    WAY_IN_FIELD_NUMBER: _ClassVar[int]
    agent: str
    cwd: str
    handoff_token: str
    instance_id: str
    launch_id: str
    pid: int
    previous_target: _types_pb2.Target
    profile_key: str
    provider: str
    thread_name: str
    way_in: _types_pb2.WayIn
    way_in_detail: str
    def __init__(self, instance_id: _Optional[str] = ..., profile_key: _Optional[str] = ..., thread_name: _Optional[str] = ..., cwd: _Optional[str] = ..., pid: _Optional[int] = ..., previous_target: _Optional[_Union[_types_pb2.Target, _Mapping]] = ..., handoff_token: _Optional[str] = ..., provider: _Optional[str] = ..., way_in: _Optional[_Union[_types_pb2.WayIn, str]] = ..., way_in_detail: _Optional[str] = ..., launch_id: _Optional[str] = ..., agent: _Optional[str] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ["binding", "capabilities", "heartbeat_interval", "origin", "session", "stale_after", "subscribed_heartbeat_interval"]
    BINDING_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    STALE_AFTER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBED_HEARTBEAT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    binding: _types_pb2.Binding
    capabilities: Capabilities
    heartbeat_interval: _duration_pb2.Duration
    origin: _types_pb2.Origin
    session: Session
    stale_after: _duration_pb2.Duration
    subscribed_heartbeat_interval: _duration_pb2.Duration
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., binding: _Optional[_Union[_types_pb2.Binding, _Mapping]] = ..., origin: _Optional[_Union[_types_pb2.Origin, str]] = ..., heartbeat_interval: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., stale_after: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., capabilities: _Optional[_Union[Capabilities, _Mapping]] = ..., subscribed_heartbeat_interval: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class SendMessageRequest(_message.Message):
    __slots__ = ["buttons", "idempotency_key", "prompt", "reply_to", "session", "text"]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    buttons: _containers.RepeatedCompositeFieldContainer[_types_pb2.Button]
    idempotency_key: str
    prompt: bool
    reply_to: str
    session: Session
    text: str
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., text: _Optional[str] = ..., reply_to: _Optional[str] = ..., buttons: _Optional[_Iterable[_Union[_types_pb2.Button, _Mapping]]] = ..., prompt: bool = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class SendMessageResponse(_message.Message):
    __slots__ = ["message_ids"]
    MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    message_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, message_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class SendTypingRequest(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class SendTypingResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Session(_message.Message):
    __slots__ = ["instance_id", "token"]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    instance_id: str
    token: str
    def __init__(self, instance_id: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class StopRequest(_message.Message):
    __slots__ = ["provider", "requested_by"]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    provider: str
    requested_by: str
    def __init__(self, requested_by: _Optional[str] = ..., provider: _Optional[str] = ...) -> None: ...

class StreamMessageRequest(_message.Message):
    __slots__ = ["buttons", "final", "idempotency_key", "reply_to", "session", "stream_id", "text"]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    STREAM_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    buttons: _containers.RepeatedCompositeFieldContainer[_types_pb2.Button]
    final: bool
    idempotency_key: str
    reply_to: str
    session: Session
    stream_id: str
    text: str
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., stream_id: _Optional[str] = ..., text: _Optional[str] = ..., final: bool = ..., reply_to: _Optional[str] = ..., buttons: _Optional[_Iterable[_Union[_types_pb2.Button, _Mapping]]] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class StreamMessageResponse(_message.Message):
    __slots__ = ["message_ids"]
    MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    message_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, message_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ["after_seq", "max_batch", "session"]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    after_seq: int
    max_batch: int
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., after_seq: _Optional[int] = ..., max_batch: _Optional[int] = ...) -> None: ...

class SubscribeResponse(_message.Message):
    __slots__ = ["binding_changed", "stop_requested", "update", "updates"]
    BINDING_CHANGED_FIELD_NUMBER: _ClassVar[int]
    STOP_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    binding_changed: _types_pb2.Binding
    stop_requested: StopRequest
    update: _types_pb2.Update
    updates: _containers.RepeatedCompositeFieldContainer[_types_pb2.Update]
    def __init__(self, update: _Optional[_Union[_types_pb2.Update, _Mapping]] = ..., binding_changed: _Optional[_Union[_types_pb2.Binding, _Mapping]] = ..., updates: _Optional[_Iterable[_Union[_types_pb2.Update, _Mapping]]] = ..., stop_requested: _Optional[_Union[StopRequest, _Mapping]] = ...) -> None: ...

class SuspendRequest(_message.Message):
    __slots__ = ["reason", "session"]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    reason: SuspendReason
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., reason: _Optional[_Union[SuspendReason, str]] = ...) -> None: ...

class SuspendResponse(_message.Message):
    __slots__ = ["expires_at", "handoff_token"]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    HANDOFF_TOKEN_FIELD_NUMBER: _ClassVar[int]
    expires_at: _timestamp_pb2.Timestamp
    handoff_token: str
    def __init__(self, handoff_token: _Optional[str] = ..., expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class UnregisterRequest(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class UnregisterResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class UploadFileRequest(_message.Message):
    __slots__ = ["chunk", "header"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    header: UploadHeader
    def __init__(self, header: _Optional[_Union[UploadHeader, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class UploadFileResponse(_message.Message):
    __slots__ = ["references", "result_json"]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    references: _containers.RepeatedCompositeFieldContainer[_types_pb2.Reference]
    result_json: bytes
    def __init__(self, result_json: _Optional[bytes] = ..., references: _Optional[_Iterable[_Union[_types_pb2.Reference, _Mapping]]] = ...) -> None: ...

class UploadHeader(_message.Message):
    __slots__ = ["caption", "filename", "idempotency_key", "kind", "session"]
    CAPTION_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    caption: str
    filename: str
    idempotency_key: str
    kind: str
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., filename: _Optional[str] = ..., caption: _Optional[str] = ..., kind: _Optional[str] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class DeliveryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Notice(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SuspendReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
