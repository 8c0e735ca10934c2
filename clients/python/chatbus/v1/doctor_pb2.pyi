from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
FENCE_PHASE_COMMITTED: FencePhase
FENCE_PHASE_IDLE: FencePhase
FENCE_PHASE_PREPARED: FencePhase
FENCE_PHASE_UNSPECIFIED: FencePhase
OUTCOME_KIND_COMMIT_REFUSED: OutcomeKind
OUTCOME_KIND_OLD_OWNER_EXIT_TIMEOUT: OutcomeKind
OUTCOME_KIND_OWNER_UNAVAILABLE: OutcomeKind
OUTCOME_KIND_PREPARE_REFUSED: OutcomeKind
OUTCOME_KIND_RESTARTED: OutcomeKind
OUTCOME_KIND_SUCCESSOR_REFUSED: OutcomeKind
OUTCOME_KIND_UNSPECIFIED: OutcomeKind
OUTCOME_REASON_NOT_ACKNOWLEDGED: OutcomeReason
OUTCOME_REASON_NOT_CONFIRMED_LIVE: OutcomeReason
OUTCOME_REASON_NO_STATE: OutcomeReason
OUTCOME_REASON_PUBLICATION_TIMEOUT: OutcomeReason
OUTCOME_REASON_START_REFUSED: OutcomeReason
OUTCOME_REASON_UNSPECIFIED: OutcomeReason
OUTCOME_REASON_UNSUPPORTED_PROTOCOL: OutcomeReason
OUTCOME_REASON_WRITE_FAILED: OutcomeReason
RESTART_PHASE_COMMIT: RestartPhase
RESTART_PHASE_DRAIN: RestartPhase
RESTART_PHASE_EXIT_PROOF: RestartPhase
RESTART_PHASE_OBSERVE: RestartPhase
RESTART_PHASE_PREPARE: RestartPhase
RESTART_PHASE_READY: RestartPhase
RESTART_PHASE_SUCCESSOR: RestartPhase
RESTART_PHASE_UNSPECIFIED: RestartPhase

class CancelRequest(_message.Message):
    __slots__ = ["provider", "request_id"]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    provider: str
    request_id: str
    def __init__(self, provider: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class CancelResponse(_message.Message):
    __slots__ = ["owner"]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    owner: Owner
    def __init__(self, owner: _Optional[_Union[Owner, _Mapping]] = ...) -> None: ...

class CommitRequest(_message.Message):
    __slots__ = ["provider", "request_id"]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    provider: str
    request_id: str
    def __init__(self, provider: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class CommitResponse(_message.Message):
    __slots__ = ["owner"]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    owner: Owner
    def __init__(self, owner: _Optional[_Union[Owner, _Mapping]] = ...) -> None: ...

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

class Owner(_message.Message):
    __slots__ = ["admitting", "generation", "lease_expires_at", "occupancy", "owner_id", "phase", "pid", "present", "provider", "request_id", "start_time"]
    ADMITTING_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    LEASE_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    OCCUPANCY_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    PRESENT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    admitting: bool
    generation: int
    lease_expires_at: _timestamp_pb2.Timestamp
    occupancy: Occupancy
    owner_id: str
    phase: FencePhase
    pid: int
    present: bool
    provider: str
    request_id: str
    start_time: int
    def __init__(self, provider: _Optional[str] = ..., present: bool = ..., owner_id: _Optional[str] = ..., generation: _Optional[int] = ..., pid: _Optional[int] = ..., start_time: _Optional[int] = ..., phase: _Optional[_Union[FencePhase, str]] = ..., admitting: bool = ..., occupancy: _Optional[_Union[Occupancy, _Mapping]] = ..., lease_expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class PrepareRequest(_message.Message):
    __slots__ = ["lease", "provider", "request_id"]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    lease: _duration_pb2.Duration
    provider: str
    request_id: str
    def __init__(self, provider: _Optional[str] = ..., request_id: _Optional[str] = ..., lease: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class PrepareResponse(_message.Message):
    __slots__ = ["owner"]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    owner: Owner
    def __init__(self, owner: _Optional[_Union[Owner, _Mapping]] = ...) -> None: ...

class RestartOutcome(_message.Message):
    __slots__ = ["adopted", "elapsed", "exit_proof", "kind", "message", "old", "prepare_to_ready", "reason", "successor"]
    ADOPTED_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    EXIT_PROOF_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OLD_FIELD_NUMBER: _ClassVar[int]
    PREPARE_TO_READY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SUCCESSOR_FIELD_NUMBER: _ClassVar[int]
    adopted: bool
    elapsed: _duration_pb2.Duration
    exit_proof: str
    kind: OutcomeKind
    message: str
    old: Owner
    prepare_to_ready: _duration_pb2.Duration
    reason: OutcomeReason
    successor: Owner
    def __init__(self, kind: _Optional[_Union[OutcomeKind, str]] = ..., reason: _Optional[_Union[OutcomeReason, str]] = ..., message: _Optional[str] = ..., old: _Optional[_Union[Owner, _Mapping]] = ..., successor: _Optional[_Union[Owner, _Mapping]] = ..., adopted: bool = ..., exit_proof: _Optional[str] = ..., elapsed: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., prepare_to_ready: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RestartProgress(_message.Message):
    __slots__ = ["blockers", "elapsed", "message", "occupancy", "phase"]
    BLOCKERS_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OCCUPANCY_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    blockers: _containers.RepeatedScalarFieldContainer[str]
    elapsed: _duration_pb2.Duration
    message: str
    occupancy: Occupancy
    phase: RestartPhase
    def __init__(self, phase: _Optional[_Union[RestartPhase, str]] = ..., message: _Optional[str] = ..., occupancy: _Optional[_Union[Occupancy, _Mapping]] = ..., blockers: _Optional[_Iterable[str]] = ..., elapsed: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RestartRequest(_message.Message):
    __slots__ = ["deadline", "drain", "provider"]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    DRAIN_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    deadline: _duration_pb2.Duration
    drain: _duration_pb2.Duration
    provider: str
    def __init__(self, provider: _Optional[str] = ..., drain: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., deadline: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RestartResponse(_message.Message):
    __slots__ = ["outcome", "progress"]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    outcome: RestartOutcome
    progress: RestartProgress
    def __init__(self, progress: _Optional[_Union[RestartProgress, _Mapping]] = ..., outcome: _Optional[_Union[RestartOutcome, _Mapping]] = ...) -> None: ...

class StatusRequest(_message.Message):
    __slots__ = ["provider"]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    provider: str
    def __init__(self, provider: _Optional[str] = ...) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ["owners"]
    OWNERS_FIELD_NUMBER: _ClassVar[int]
    owners: _containers.RepeatedCompositeFieldContainer[Owner]
    def __init__(self, owners: _Optional[_Iterable[_Union[Owner, _Mapping]]] = ...) -> None: ...

class FencePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class RestartPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class OutcomeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class OutcomeReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
