from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

BINDING_STATUS_ACTIVE: BindingStatus
BINDING_STATUS_FAILED: BindingStatus
BINDING_STATUS_OFFLINE: BindingStatus
BINDING_STATUS_PENDING: BindingStatus
BINDING_STATUS_STALE: BindingStatus
BINDING_STATUS_STARTING: BindingStatus
BINDING_STATUS_SUSPENDED: BindingStatus
BINDING_STATUS_UNSPECIFIED: BindingStatus
DESCRIPTOR: _descriptor.FileDescriptor
ORIGIN_DETACHED: Origin
ORIGIN_FRESH: Origin
ORIGIN_HANDOFF: Origin
ORIGIN_REUSE: Origin
ORIGIN_UNSPECIFIED: Origin
REFERENCE_KIND_FILE: ReferenceKind
REFERENCE_KIND_INTERACTION: ReferenceKind
REFERENCE_KIND_MESSAGE: ReferenceKind
REFERENCE_KIND_UNSPECIFIED: ReferenceKind
TRANSCRIPT_STATUS_DONE: TranscriptStatus
TRANSCRIPT_STATUS_EMPTY: TranscriptStatus
TRANSCRIPT_STATUS_FAILED: TranscriptStatus
TRANSCRIPT_STATUS_NOT_CONFIGURED: TranscriptStatus
TRANSCRIPT_STATUS_TIMED_OUT: TranscriptStatus
TRANSCRIPT_STATUS_TOO_LONG: TranscriptStatus
TRANSCRIPT_STATUS_UNSPECIFIED: TranscriptStatus
UPDATE_KIND_CALLBACK_QUERY: UpdateKind
UPDATE_KIND_COMMAND: UpdateKind
UPDATE_KIND_EDITED_MESSAGE: UpdateKind
UPDATE_KIND_MESSAGE: UpdateKind
UPDATE_KIND_REACTION: UpdateKind
UPDATE_KIND_UNSPECIFIED: UpdateKind
WAY_IN_CHANNEL: WayIn
WAY_IN_INBOX: WayIn
WAY_IN_NONE: WayIn
WAY_IN_UNSPECIFIED: WayIn

class Audio(_message.Message):
    __slots__ = ["duration_seconds", "file_id", "file_name", "mime_type", "note", "size", "transcript", "transcript_status", "voice"]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_STATUS_FIELD_NUMBER: _ClassVar[int]
    VOICE_FIELD_NUMBER: _ClassVar[int]
    duration_seconds: int
    file_id: str
    file_name: str
    mime_type: str
    note: str
    size: int
    transcript: str
    transcript_status: TranscriptStatus
    voice: bool
    def __init__(self, file_id: _Optional[str] = ..., mime_type: _Optional[str] = ..., duration_seconds: _Optional[int] = ..., size: _Optional[int] = ..., file_name: _Optional[str] = ..., voice: bool = ..., transcript_status: _Optional[_Union[TranscriptStatus, str]] = ..., transcript: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...

class Binding(_message.Message):
    __slots__ = ["instance_id", "platform", "profile_key", "slot", "status", "target", "thread_name"]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    PROFILE_KEY_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    THREAD_NAME_FIELD_NUMBER: _ClassVar[int]
    instance_id: str
    platform: str
    profile_key: str
    slot: str
    status: BindingStatus
    target: Target
    thread_name: str
    def __init__(self, profile_key: _Optional[str] = ..., target: _Optional[_Union[Target, _Mapping]] = ..., slot: _Optional[str] = ..., thread_name: _Optional[str] = ..., status: _Optional[_Union[BindingStatus, str]] = ..., instance_id: _Optional[str] = ..., platform: _Optional[str] = ...) -> None: ...

class Button(_message.Message):
    __slots__ = ["data", "label"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    data: str
    label: str
    def __init__(self, label: _Optional[str] = ..., data: _Optional[str] = ...) -> None: ...

class Follower(_message.Message):
    __slots__ = ["binding", "connected_at", "cwd", "instance_id", "last_heartbeat", "origin", "pid", "profile_key", "subscribed", "thread_name", "way_in", "way_in_detail"]
    BINDING_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_AT_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    PROFILE_KEY_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBED_FIELD_NUMBER: _ClassVar[int]
    THREAD_NAME_FIELD_NUMBER: _ClassVar[int]
    WAY_IN_DETAIL_FIELD_NUMBER: _ClassVar[int]
    WAY_IN_FIELD_NUMBER: _ClassVar[int]
    binding: Binding
    connected_at: _timestamp_pb2.Timestamp
    cwd: str
    instance_id: str
    last_heartbeat: _timestamp_pb2.Timestamp
    origin: Origin
    pid: int
    profile_key: str
    subscribed: bool
    thread_name: str
    way_in: WayIn
    way_in_detail: str
    def __init__(self, instance_id: _Optional[str] = ..., profile_key: _Optional[str] = ..., pid: _Optional[int] = ..., cwd: _Optional[str] = ..., thread_name: _Optional[str] = ..., connected_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_heartbeat: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., subscribed: bool = ..., binding: _Optional[_Union[Binding, _Mapping]] = ..., origin: _Optional[_Union[Origin, str]] = ..., way_in: _Optional[_Union[WayIn, str]] = ..., way_in_detail: _Optional[str] = ...) -> None: ...

class Reference(_message.Message):
    __slots__ = ["id", "kind"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: ReferenceKind
    def __init__(self, kind: _Optional[_Union[ReferenceKind, str]] = ..., id: _Optional[str] = ...) -> None: ...

class Target(_message.Message):
    __slots__ = ["chat", "chat_id", "provider", "thread", "thread_id"]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    chat: str
    chat_id: int
    provider: str
    thread: str
    thread_id: int
    def __init__(self, provider: _Optional[str] = ..., chat_id: _Optional[int] = ..., thread_id: _Optional[int] = ..., chat: _Optional[str] = ..., thread: _Optional[str] = ...) -> None: ...

class Update(_message.Message):
    __slots__ = ["audio", "from_user_id", "kind", "payload", "platform", "platform_update_id", "received_at", "references", "sender", "sender_name", "seq", "target", "text"]
    AUDIO_FIELD_NUMBER: _ClassVar[int]
    FROM_USER_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_UPDATE_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    SENDER_NAME_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    audio: Audio
    from_user_id: int
    kind: UpdateKind
    payload: bytes
    platform: str
    platform_update_id: int
    received_at: _timestamp_pb2.Timestamp
    references: _containers.RepeatedCompositeFieldContainer[Reference]
    sender: str
    sender_name: str
    seq: int
    target: Target
    text: str
    def __init__(self, seq: _Optional[int] = ..., target: _Optional[_Union[Target, _Mapping]] = ..., kind: _Optional[_Union[UpdateKind, str]] = ..., platform_update_id: _Optional[int] = ..., from_user_id: _Optional[int] = ..., text: _Optional[str] = ..., payload: _Optional[bytes] = ..., received_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., sender: _Optional[str] = ..., references: _Optional[_Iterable[_Union[Reference, _Mapping]]] = ..., platform: _Optional[str] = ..., sender_name: _Optional[str] = ..., audio: _Optional[_Union[Audio, _Mapping]] = ...) -> None: ...

class ReferenceKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Origin(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class BindingStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class UpdateKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class TranscriptStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class WayIn(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
