"""Pinot schemas and field specs, as the controller serves them (``GET /tables/{t}/schema``).

This is the one model of a Pinot column shared by the type mapping, the segment builder and the data
source. Values here are in Pinot's *stored* form (BOOLEAN as 0/1, TIMESTAMP as epoch millis, BYTES as
``bytes``, BIG_DECIMAL as ``decimal.Decimal``), which is what dictionaries and forward indexes hold.

Default null values follow ``org.apache.pinot.spi.data.FieldSpec`` (SEGMENT_FORMAT.md section 8); a
``defaultNullValue`` in the schema wins.
"""
from __future__ import annotations

import base64
import binascii
import datetime as _dt
import decimal
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .pinot_json import as_bool, as_int, as_list, as_object, as_str
from .errors import PinotSinkError

# Logical Pinot data types this package writes, and the stored type behind each one.
STORED_TYPE: dict[str, str] = {
    "INT": "INT",
    "LONG": "LONG",
    "FLOAT": "FLOAT",
    "DOUBLE": "DOUBLE",
    "BIG_DECIMAL": "BIG_DECIMAL",
    "BOOLEAN": "INT",
    "TIMESTAMP": "LONG",
    "STRING": "STRING",
    "JSON": "STRING",
    "BYTES": "BYTES",
}
DATA_TYPES = tuple(STORED_TYPE)
FIXED_WIDTH_STORED = {"INT": 4, "LONG": 8, "FLOAT": 4, "DOUBLE": 8}

DIMENSION = "DIMENSION"
METRIC = "METRIC"
DATE_TIME = "DATE_TIME"
TIME = "TIME"
FIELD_TYPES = (DIMENSION, METRIC, DATE_TIME, TIME)
_SPEC_LISTS = {
    "dimensionFieldSpecs": DIMENSION,
    "metricFieldSpecs": METRIC,
    "dateTimeFieldSpecs": DATE_TIME,
}

DEFAULT_MAX_LENGTH = 512  # FieldSpec.DEFAULT_MAX_LENGTH, in characters for STRING, bytes for BYTES

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

_DIMENSION_DEFAULTS: dict[str, Any] = {
    "INT": INT_MIN,
    "LONG": LONG_MIN,
    "FLOAT": float("-inf"),
    "DOUBLE": float("-inf"),
    "BIG_DECIMAL": decimal.Decimal(0),
    "BOOLEAN": 0,
    "TIMESTAMP": 0,
    "STRING": "null",
    "JSON": "null",
    "BYTES": b"",
}
_METRIC_DEFAULTS: dict[str, Any] = {
    "INT": 0,
    "LONG": 0,
    "FLOAT": 0.0,
    "DOUBLE": 0.0,
    "BIG_DECIMAL": decimal.Decimal(0),
    "STRING": "null",
    "BYTES": b"",
}


class SchemaError(PinotSinkError, ValueError):
    """A Pinot schema (or a field in it) that this package cannot use; the message names the column."""


def pinot_default_null_value(data_type: str, field_type: str) -> Any:
    """Pinot's built-in default null value (stored form) for a data type and field type."""
    table = _METRIC_DEFAULTS if field_type == METRIC else _DIMENSION_DEFAULTS
    if data_type not in table:
        raise SchemaError(f"Pinot has no default null value for a {field_type} column of type {data_type}")
    return table[data_type]


def parse_default_null_value(raw: Any, data_type: str, column: str) -> Any:
    """Turn a schema's ``defaultNullValue`` (JSON number, bool or string) into the stored form."""
    try:
        if data_type in ("INT", "LONG"):
            return int(raw)
        if data_type in ("FLOAT", "DOUBLE"):
            return float(raw)
        if data_type == "BIG_DECIMAL":
            return decimal.Decimal(str(raw))
        if data_type == "BOOLEAN":
            if isinstance(raw, str):
                return 1 if raw.strip().lower() in ("true", "1") else 0
            return 1 if raw else 0
        if data_type == "TIMESTAMP":
            return _timestamp_millis(raw)
        if data_type in ("STRING", "JSON"):
            return raw if isinstance(raw, str) else json.dumps(raw)
        if data_type == "BYTES":
            return bytes.fromhex(raw) if raw else b""
    except (ValueError, TypeError, decimal.InvalidOperation, binascii.Error) as exc:
        raise SchemaError(f"column {column!r}: defaultNullValue {raw!r} is not a valid {data_type}") from exc
    raise SchemaError(f"column {column!r}: unsupported data type {data_type}")


def _timestamp_millis(raw: Any) -> int:
    """Pinot accepts epoch millis or a ``java.sql.Timestamp`` string (``2020-01-01 00:00:00.0``, UTC)."""
    if isinstance(raw, (int, float)):
        return int(raw)
    text = str(raw).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    parsed = _dt.datetime.fromisoformat(text.replace(" ", "T"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.timezone.utc)
    return int(parsed.timestamp() * 1000)


# Pinot's built-in virtual columns (CommonConstants.Segment.BuiltInVirtualColumn): made by the server for every
# segment, never stored. Pinot's schema validation (SchemaUtils.validate) refuses a column of one of these names.
BUILT_IN_VIRTUAL_COLUMNS = frozenset({"$docId", "$hostName", "$segmentName", "$partitionId", "$creationTime",
                                      "$startTime", "$endTime", "$totalDocs", "$crc"})


def check_writable_column_names(schema: "PinotSchema") -> None:
    """A schema this writer writes has no column named like a virtual column: Pinot refuses the built-in names,
    and any other name starting with ``$`` is Pinot's virtual-column namespace (its multi-stage engine leaves
    ``$`` columns out of ``SELECT *``)."""
    for name in schema.column_names:
        if name in BUILT_IN_VIRTUAL_COLUMNS:
            raise SchemaError(f"column {name!r} is the name of one of Pinot's built-in virtual columns "
                              f"({', '.join(sorted(BUILT_IN_VIRTUAL_COLUMNS))}); Pinot refuses such a schema")
        if name.startswith("$"):
            raise SchemaError(f"column {name!r}: names starting with '$' are Pinot's virtual columns (its queries "
                              f"leave them out of SELECT *); rename the column")


@dataclass(frozen=True)
class FieldSpec:
    """One Pinot column. ``default_null_value`` is already resolved (schema value or Pinot's default)."""

    name: str
    data_type: str
    field_type: str = DIMENSION
    single_value: bool = True
    default_null_value: Any = None
    default_null_value_in_schema: bool = False
    max_length: int = DEFAULT_MAX_LENGTH
    max_length_exceed_strategy: str | None = None
    not_null: bool = False
    allow_trailing_zeros: bool = False
    datetime_format: str | None = None
    datetime_granularity: str | None = None
    transform_function: str | None = None  # the legacy schema-level ingestion transform

    def __post_init__(self) -> None:
        if self.data_type not in STORED_TYPE:
            raise SchemaError(
                f"column {self.name!r}: Pinot data type {self.data_type} is not supported "
                f"(supported: {', '.join(DATA_TYPES)})"
            )
        if self.field_type not in FIELD_TYPES:
            raise SchemaError(f"column {self.name!r}: unknown field type {self.field_type}")
        if self.data_type == "BIG_DECIMAL" and not self.single_value:
            raise SchemaError(f"column {self.name!r}: Pinot has no multi-value BIG_DECIMAL")
        if self.default_null_value is None:
            object.__setattr__(
                self, "default_null_value", pinot_default_null_value(self.data_type, self.field_type)
            )

    @property
    def stored_type(self) -> str:
        return STORED_TYPE[self.data_type]

    @property
    def is_fixed_width(self) -> bool:
        return self.stored_type in FIXED_WIDTH_STORED

    @property
    def effective_max_length_strategy(self) -> str:
        """FieldSpec's default: TRIM_LENGTH for STRING, NO_ACTION for JSON and BYTES."""
        if self.max_length_exceed_strategy:
            return self.max_length_exceed_strategy
        return "TRIM_LENGTH" if self.data_type == "STRING" else "NO_ACTION"

    @classmethod
    def from_json(cls, spec: Mapping[str, Any], field_type: str) -> "FieldSpec":
        """A field spec read as Pinot's Jackson mapper reads it: ``"notNull": "false"`` is false, numbers may
        be text; an invalid value is an error naming the column, the key and the value."""
        spec = as_object(spec, f"a {field_type} field spec")
        name = as_str(spec.get("name"), "name")
        if not name:
            raise SchemaError(f"a {field_type} field spec has no name: {dict(spec)!r}")
        where = f"column {name!r}: "
        try:
            data_type = (as_str(spec.get("dataType"), where + "dataType") or "").upper()
            field_type = (as_str(spec.get("fieldType"), where + "fieldType") or field_type).upper()
            single_value = as_bool(spec.get("singleValueField"), where + "singleValueField", True)
            max_length = as_int(spec.get("maxLength"), where + "maxLength", DEFAULT_MAX_LENGTH)
            not_null = as_bool(spec.get("notNull"), where + "notNull", False)
            allow_trailing_zeros = as_bool(spec.get("allowTrailingZeros"), where + "allowTrailingZeros", False)
            strategy = as_str(spec.get("maxLengthExceedStrategy"), where + "maxLengthExceedStrategy")
            transform = as_str(spec.get("transformFunction"), where + "transformFunction")
            fmt = as_str(spec.get("format"), where + "format")
            granularity = as_str(spec.get("granularity"), where + "granularity")
        except ValueError as exc:
            raise SchemaError(str(exc)) from None
        if data_type not in STORED_TYPE:
            raise SchemaError(
                f"column {name!r}: Pinot data type {data_type or '(missing)'} is not supported "
                f"(supported: {', '.join(DATA_TYPES)})"
            )
        has_default = "defaultNullValue" in spec and spec["defaultNullValue"] is not None
        default = (
            parse_default_null_value(spec["defaultNullValue"], data_type, name) if has_default else None
        )
        return cls(
            name=name,
            data_type=data_type,
            field_type=field_type,
            single_value=single_value,
            default_null_value=default,
            default_null_value_in_schema=has_default,
            max_length=max_length,
            max_length_exceed_strategy=strategy.upper() if strategy else None,
            not_null=not_null,
            allow_trailing_zeros=allow_trailing_zeros,
            datetime_format=fmt,
            datetime_granularity=granularity,
            transform_function=transform or None,
        )

    def to_json(self) -> dict[str, Any]:
        """The field spec as the controller accepts it (only non-default keys, like Pinot prints it)."""
        out: dict[str, Any] = {"name": self.name, "dataType": self.data_type}
        if not self.single_value:
            out["singleValueField"] = False
        if self.not_null:
            out["notNull"] = True
        if self.max_length != DEFAULT_MAX_LENGTH:
            out["maxLength"] = self.max_length
        if self.max_length_exceed_strategy:
            out["maxLengthExceedStrategy"] = self.max_length_exceed_strategy
        if self.allow_trailing_zeros:
            out["allowTrailingZeros"] = True
        if self.default_null_value_in_schema:
            out["defaultNullValue"] = default_null_value_json(self.default_null_value, self.data_type)
        if self.field_type == DATE_TIME:
            out["format"] = self.datetime_format
            out["granularity"] = self.datetime_granularity
        if self.transform_function:
            out["transformFunction"] = self.transform_function
        return out


def default_null_value_json(value: Any, data_type: str) -> Any:
    if data_type == "BYTES":
        return value.hex()
    if data_type == "BIG_DECIMAL":
        return str(value)
    if data_type == "BOOLEAN":
        return bool(value)
    return value


_TIME_UNITS = ("NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS")


@dataclass(frozen=True)
class TimeGranularity:
    """One side of a legacy ``timeFieldSpec`` (``TimeGranularitySpec``): which column, its type, its unit."""

    name: str
    data_type: str
    time_type: str  # a java.util.concurrent.TimeUnit name
    size: int = 1
    time_format: str = "EPOCH"  # or SIMPLE_DATE_FORMAT:<pattern>

    @classmethod
    def from_json(cls, spec: Mapping[str, Any], key: str) -> "TimeGranularity":
        name = as_str(spec.get("name"), f"{key}.name")
        data_type = (as_str(spec.get("dataType"), f"{key}.dataType") or "").upper()
        time_type = (as_str(spec.get("timeType"), f"{key}.timeType") or "").upper()
        size = as_int(spec.get("timeUnitSize"), f"{key}.timeUnitSize", 1)
        time_format = as_str(spec.get("timeFormat"), f"{key}.timeFormat", "EPOCH")
        if not name or data_type not in STORED_TYPE:
            raise SchemaError(f"{key}: needs a name and a dataType, got {dict(spec)!r}")
        if time_type not in _TIME_UNITS:
            raise SchemaError(f"{key}.timeType: {time_type or '(missing)'} is not one of {', '.join(_TIME_UNITS)}")
        if size < 1:
            raise SchemaError(f"{key}.timeUnitSize: must be positive, got {size}")
        if time_format != "EPOCH" and not (time_format.startswith("SIMPLE_DATE_FORMAT:") and time_format[19:]):
            raise SchemaError(f"{key}.timeFormat: {time_format!r} is neither EPOCH nor SIMPLE_DATE_FORMAT:<pattern>")
        return cls(name, data_type, time_type, size, time_format)

    @property
    def is_epoch(self) -> bool:
        return self.time_format == "EPOCH"

    @property
    def datetime_format(self) -> str:
        """The column's format as ``Schema.convertToDateTimeFieldSpec`` derives it (what the segment's time
        range and the segment name are computed with)."""
        if self.is_epoch:
            return f"{self.size}:{self.time_type}:EPOCH"
        return f"{self.size}:{self.time_type}:SIMPLE_DATE_FORMAT:{self.time_format.split(':', 1)[1]}"

    @property
    def granularity(self) -> str:
        return f"{self.size}:{self.time_type}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "dataType": self.data_type, "timeType": self.time_type}
        if self.size != 1:
            out["timeUnitSize"] = self.size
        if self.time_format != "EPOCH":
            out["timeFormat"] = self.time_format
        return out


@dataclass(frozen=True)
class LegacyTimeSpec:
    """A schema's ``timeFieldSpec``: the column is named and typed by the outgoing side (``TimeFieldSpec``);
    when the two sides differ, ingestion converts the incoming column into it (``TimeSpecFunctionEvaluator``)."""

    incoming: TimeGranularity
    outgoing: TimeGranularity

    @property
    def converts(self) -> bool:
        return self.incoming != self.outgoing


@dataclass
class PinotSchema:
    """A Pinot schema: ordered field specs plus the schema-level null-handling switch."""

    name: str
    fields: dict[str, FieldSpec] = field(default_factory=dict)
    enable_column_based_null_handling: bool = False
    primary_key_columns: list[str] = field(default_factory=list)
    time_spec: LegacyTimeSpec | None = None  # a legacy timeFieldSpec (its column is also in ``fields``)

    @classmethod
    def from_json(cls, schema: Mapping[str, Any] | str) -> "PinotSchema":
        if isinstance(schema, str):
            schema = json.loads(schema)
        try:
            schema = as_object(schema, "schema")
            fields: dict[str, FieldSpec] = {}
            for key, field_type in _SPEC_LISTS.items():
                for spec in as_list(schema.get(key), key):
                    _add(fields, FieldSpec.from_json(spec, field_type))
            time_spec = _legacy_time_spec(as_object(schema.get("timeFieldSpec"), "timeFieldSpec"), fields)
            if schema.get("complexFieldSpecs"):
                names = [s.get("name") for s in schema["complexFieldSpecs"]]
                raise SchemaError(f"columns {names}: COMPLEX (MAP/LIST) Pinot columns are not supported yet")
            return cls(
                name=as_str(schema.get("schemaName"), "schemaName", ""),
                fields=fields,
                enable_column_based_null_handling=as_bool(
                    schema.get("enableColumnBasedNullHandling"), "enableColumnBasedNullHandling", False),
                primary_key_columns=[as_str(c, "primaryKeyColumns") for c in as_list(
                    schema.get("primaryKeyColumns"), "primaryKeyColumns")],
                time_spec=time_spec,
            )
        except SchemaError:
            raise
        except ValueError as exc:
            raise SchemaError(f"schema: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schemaName": self.name}
        if self.enable_column_based_null_handling:
            out["enableColumnBasedNullHandling"] = True
        for key, field_type in _SPEC_LISTS.items():
            specs = [f.to_json() for f in self.fields.values() if f.field_type == field_type]
            if specs:
                out[key] = specs
        if self.time_spec is not None:
            spec = self.fields[self.time_spec.outgoing.name].to_json()
            time_json = {k: v for k, v in spec.items() if k not in ("name", "dataType", "format", "granularity")}
            time_json["incomingGranularitySpec"] = self.time_spec.incoming.to_json()
            if self.time_spec.converts:
                time_json["outgoingGranularitySpec"] = self.time_spec.outgoing.to_json()
            out["timeFieldSpec"] = time_json
        if self.primary_key_columns:
            out["primaryKeyColumns"] = list(self.primary_key_columns)
        return out

    def __iter__(self) -> Iterable[FieldSpec]:
        return iter(self.fields.values())

    def __getitem__(self, name: str) -> FieldSpec:
        return self.fields[name]

    def __contains__(self, name: object) -> bool:
        return name in self.fields

    @property
    def column_names(self) -> list[str]:
        return list(self.fields)


def _legacy_time_spec(time_spec: Mapping[str, Any], fields: dict[str, FieldSpec]) -> LegacyTimeSpec | None:
    if not time_spec:
        return None
    key = "timeFieldSpec"
    incoming = TimeGranularity.from_json(
        as_object(time_spec.get("incomingGranularitySpec"), f"{key}.incomingGranularitySpec"),
        f"{key}.incomingGranularitySpec")
    outgoing_json = as_object(time_spec.get("outgoingGranularitySpec"), f"{key}.outgoingGranularitySpec")
    outgoing = TimeGranularity.from_json(outgoing_json, f"{key}.outgoingGranularitySpec") if outgoing_json \
        else incoming
    legacy = LegacyTimeSpec(incoming, outgoing)
    if legacy.converts and incoming.name == outgoing.name:  # FunctionEvaluatorFactory refuses it
        raise SchemaError(f"{key}: the incoming and outgoing granularity specs differ but both name the column "
                          f"{incoming.name!r}")
    if legacy.converts and not (incoming.is_epoch and outgoing.is_epoch):  # TimeConverter: EPOCH only
        raise SchemaError(f"{key}: Pinot converts incoming to outgoing time only between EPOCH formats")
    rest = {k: v for k, v in time_spec.items() if k not in ("incomingGranularitySpec", "outgoingGranularitySpec")}
    _add(fields, FieldSpec.from_json({**rest, "name": outgoing.name, "dataType": outgoing.data_type,
                                      "format": outgoing.datetime_format, "granularity": outgoing.granularity}, TIME))
    return legacy


def _add(fields: dict[str, FieldSpec], spec: FieldSpec) -> None:
    if spec.name in fields:
        raise SchemaError(f"column {spec.name!r} is defined twice in the Pinot schema")
    fields[spec.name] = spec


def null_vector_columns(schema: PinotSchema, table_config: Mapping[str, Any] | None) -> set[str]:
    """Columns that get a null value vector.

    Pinot: with ``enableColumnBasedNullHandling`` in the schema, every column not marked ``notNull``;
    otherwise every column when the table's ``tableIndexConfig.nullHandlingEnabled`` is true.
    """
    if schema.enable_column_based_null_handling:
        return {f.name for f in schema if not f.not_null}
    index_config = as_object((table_config or {}).get("tableIndexConfig"), "tableIndexConfig")
    if as_bool(index_config.get("nullHandlingEnabled"), "tableIndexConfig.nullHandlingEnabled"):
        return set(schema.column_names)
    return set()


def decode_bytes_literal(text: str) -> bytes:
    """BYTES literals in schemas and JSON inputs are hex; base64 is accepted when it is not hex."""
    try:
        return bytes.fromhex(text)
    except ValueError:
        return base64.b64decode(text, validate=True)
