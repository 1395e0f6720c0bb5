#!/usr/bin/env python3
"""Check that the project's schema registry (scripts/registry.sh) speaks
Confluent Schema Registry's REST API and that the Confluent wire format works,
with clients that owe nothing to Copycat: Confluent's own Python client and
serde (confluent-kafka) and fastavro.

    scripts/registry-smoke.py [smoke]   the check (exit 0 iff every step passed)
    scripts/registry-smoke.py decode    read Confluent-framed Avro values, one per
                                        line in hex, from stdin; print each as a JSON
                                        line {"schema_id": N, "value": ...} decoded
                                        with fastavro and the writer schema fetched
                                        from the registry by the id in the value
                                        (bytes as hex, dates and times ISO 8601,
                                        decimals as strings)
    scripts/registry-smoke.py encode    read JSON lines {"topic": T, "schema": AVRO_SCHEMA,
                                        "value": V, "key": false} ("schema_text": the
                                        schema's exact text, instead of "schema", to
                                        register it as it is); serialize each value
                                        with Confluent's AvroSerializer (registering the
                                        schema under T-value, or T-key) and print the
                                        Confluent-framed bytes in hex, one line each.
                                        In V, {"$bytes": HEX}, {"$decimal": "1.23"},
                                        {"$date": "2024-01-02"}, {"$time_ms": N} and
                                        {"$timestamp_ms": N} stand for Avro's bytes and
                                        logical types

The check: register an Avro schema under the subject `t-value`, fetch it back
by id, encode a record in the Confluent wire format (magic byte 0, the schema
id as 4 bytes big-endian, the Avro binary encoding) with fastavro, compare
with what Confluent's AvroSerializer writes, decode it with fastavro using the
schema fetched by id (and with Confluent's AvroDeserializer), check that the
global compatibility is BACKWARD and that an incompatible new version is
refused with 409, a compatible one accepted and old bytes readable with it,
and that an unknown id is a 404 with error code 40403.

The registry's URL: SCHEMA_REGISTRY_URL (`scripts/registry.sh env`), default
http://127.0.0.1:9181/apis/ccompat/v7. The packages (pinned in
registry-smoke.requirements.txt beside this script) are installed on first
use into a venv under $COPYCAT_CACHE/toolchains/python (default
~/.cache/copycat), and the script re-runs itself with that venv's Python.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "registry-smoke.requirements.txt"
DEFAULT_URL = "http://127.0.0.1:9181/apis/ccompat/v7"
SUBJECT = "t-value"


def log(msg):
    print(f"registry-smoke: {msg}", file=sys.stderr, flush=True)


def ensure_venv():
    """Re-run this script in the venv that holds the pinned packages,
    creating it first if needed."""
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:12]
    cache = Path(os.environ.get("COPYCAT_CACHE") or Path.home() / ".cache/copycat")
    venv = cache / "toolchains/python" / f"venv-registry-smoke-{digest}"
    python = venv / "bin/python"
    if Path(sys.prefix).resolve() == venv.resolve():
        return
    done = venv / ".complete"
    if not done.exists():
        import fcntl

        venv.parent.mkdir(parents=True, exist_ok=True)
        with open(venv.parent / f"{venv.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                log(f"installing {REQUIREMENTS.name} into {venv} (pip, once)")
                subprocess.run(["rm", "-rf", str(venv)], check=True)
                try:
                    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, stdout=sys.stderr)
                    subprocess.run(
                        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                         "--no-input", "-r", str(REQUIREMENTS)],
                        check=True, stdout=sys.stderr,
                    )
                except (subprocess.CalledProcessError, OSError) as e:
                    subprocess.run(["rm", "-rf", str(venv)])
                    sys.exit(f"registry-smoke: error: could not install {REQUIREMENTS} into {venv} "
                             f"(needs python3-venv and PyPI): {e}")
                done.touch()
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


# ---------------------------------------------------------------- the wire format

MAGIC = 0


def frame(schema_id, avro_body):
    """Confluent's wire format: magic byte 0, 4-byte big-endian schema id, Avro binary."""
    import struct

    return struct.pack(">bI", MAGIC, schema_id) + avro_body


def unframe(data):
    """(schema_id, avro_body) of a Confluent-framed value."""
    import struct

    if len(data) < 5:
        raise ValueError(f"{len(data)} bytes: too short for the Confluent wire format (5-byte header)")
    magic, schema_id = struct.unpack(">bI", data[:5])
    if magic != MAGIC:
        raise ValueError(f"magic byte {magic}, expected {MAGIC}")
    return schema_id, data[5:]


def avro_encode(parsed_schema, record):
    import io

    import fastavro

    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed_schema, record)
    return out.getvalue()


class Decoder:
    """Decodes Confluent-framed Avro with fastavro, fetching each writer
    schema from the registry by the id in the value (once per id)."""

    def __init__(self, url):
        import json

        import fastavro
        from confluent_kafka.schema_registry import SchemaRegistryClient

        self._client = SchemaRegistryClient({"url": url})
        self._json = json
        self._fastavro = fastavro
        self._schemas = {}

    def schema(self, schema_id):
        if schema_id not in self._schemas:
            text = self._client.get_schema(schema_id).schema_str
            self._schemas[schema_id] = self._fastavro.parse_schema(self._json.loads(text))
        return self._schemas[schema_id]

    def decode(self, data, reader_schema=None):
        import io

        schema_id, body = unframe(data)
        buf = io.BytesIO(body)
        value = self._fastavro.schemaless_reader(buf, self.schema(schema_id), reader_schema)
        if buf.tell() != len(body):
            raise ValueError(f"{len(body) - buf.tell()} bytes left over after the Avro value")
        return schema_id, value


def to_json(value):
    import datetime
    import decimal
    import uuid

    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    return value


# ---------------------------------------------------------------- the check

SCHEMA_V1 = {
    "type": "record",
    "name": "Smoke",
    "namespace": "dev.copycat.smoke",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "score", "type": "double"},
        {"name": "ok", "type": "boolean"},
        {"name": "raw", "type": "bytes"},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "attrs", "type": {"type": "map", "values": "int"}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
    ],
}


def with_field(schema, field):
    return {**schema, "fields": [*schema["fields"], field]}


# A new required field: data written with the latest schema cannot be read with it.
SCHEMA_INCOMPATIBLE = with_field(SCHEMA_V1, {"name": "required_extra", "type": "string"})
# A new field with a default: BACKWARD compatible.
SCHEMA_V2 = with_field(SCHEMA_V1, {"name": "added", "type": "string", "default": "none"})


def record():
    import datetime
    import decimal

    return {
        "id": 42,
        "name": "héllo ✓ ünïcode",
        "score": 1.5,
        "ok": True,
        "raw": b"\x00\x01\xfe\xff",
        "tags": ["a", "", "c"],
        "attrs": {"x": 1, "y": -2},
        "note": None,
        "at": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.timezone.utc),
        "day": datetime.date(2024, 1, 2),
        "amount": decimal.Decimal("123.45"),
    }


def smoke(url):
    import json

    import fastavro
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, SchemaRegistryError
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    failures = []

    def check(ok, what):
        print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
        if not ok:
            failures.append(what)

    print(f"registry: {url}")
    client = SchemaRegistryClient({"url": url})

    compat = client.get_compatibility()
    check(compat == "BACKWARD", f"global compatibility is {compat} (scripts/registry.sh start sets BACKWARD)")

    v1_text = json.dumps(SCHEMA_V1)
    schema_id = client.register_schema(SUBJECT, Schema(v1_text, "AVRO"))
    print(f"registered {SUBJECT}: id {schema_id}")
    again = client.register_schema(SUBJECT, Schema(v1_text, "AVRO"))
    check(again == schema_id, f"registering the same schema again gives the same id ({again})")

    # A client with empty caches, as a reader elsewhere would be.
    fetched = SchemaRegistryClient({"url": url}).get_schema(schema_id)
    check(fetched.schema_type in (None, "AVRO"), f"schema {schema_id} fetched by id is Avro ({fetched.schema_type})")
    check(
        fastavro.parse_schema(json.loads(fetched.schema_str)) == fastavro.parse_schema(SCHEMA_V1),
        f"schema {schema_id} fetched by id is the registered one",
    )

    rec = record()
    ours = frame(schema_id, avro_encode(fastavro.parse_schema(SCHEMA_V1), rec))
    print(f"encoded ({len(ours)} bytes): {ours.hex()}")
    check(ours[0] == 0 and int.from_bytes(ours[1:5], "big") == schema_id, "magic byte 0, then the id big-endian")

    ctx = SerializationContext("t", MessageField.VALUE)
    theirs = AvroSerializer(client, v1_text, conf={"auto.register.schemas": False, "use.latest.version": False})(rec, ctx)
    check(theirs == ours, "Confluent's AvroSerializer writes the same bytes")

    decoder = Decoder(url)
    got_id, value = decoder.decode(ours)
    check(got_id == schema_id, f"decoded id {got_id}")
    check(value == rec, "fastavro decodes the record with the schema fetched by id")
    print(f"decoded: {json.dumps(to_json(value), ensure_ascii=False)}")
    check(AvroDeserializer(SchemaRegistryClient({"url": url}))(ours, ctx) == rec,
          "Confluent's AvroDeserializer decodes the same record")

    try:
        client.register_schema(SUBJECT, Schema(json.dumps(SCHEMA_INCOMPATIBLE), "AVRO"))
        check(False, "an incompatible new version (a required field added) is refused")
    except SchemaRegistryError as e:
        print(f"incompatible: HTTP {e.http_status_code}, error_code {e.error_code}: {e.error_message}")
        check(e.http_status_code == 409, "an incompatible new version (a required field added) is refused with 409")

    v2_id = client.register_schema(SUBJECT, Schema(json.dumps(SCHEMA_V2), "AVRO"))
    check(v2_id != schema_id, f"a compatible new version (a field with a default) is accepted: id {v2_id}")
    latest = client.get_latest_version(SUBJECT)
    check(latest.schema_id == v2_id, f"latest version of {SUBJECT} is {latest.version}, id {latest.schema_id}")
    _, evolved = decoder.decode(ours, fastavro.parse_schema(SCHEMA_V2))
    check(evolved == {**rec, "added": "none"}, "v1 bytes read with the v2 schema get the default")

    try:
        client.get_schema(2_000_000_000)
        check(False, "an unknown id is an error")
    except SchemaRegistryError as e:
        print(f"unknown id: HTTP {e.http_status_code}, error_code {e.error_code}: {e.error_message}")
        check(e.http_status_code == 404 and e.error_code == 40403, "an unknown id is 404, error code 40403")

    if failures:
        print(f"FAILED: {len(failures)} check(s)")
        return 1
    print("PASS")
    return 0


def decode_stdin(url):
    import json

    decoder = Decoder(url)
    for n, line in enumerate(sys.stdin, 1):
        line = line.strip()
        if not line:
            continue
        try:
            schema_id, value = decoder.decode(bytes.fromhex(line))
        except Exception as e:
            sys.exit(f"registry-smoke: error: line {n}: {e}")
        print(json.dumps({"schema_id": schema_id, "value": to_json(value)}, ensure_ascii=False), flush=True)
    return 0


def from_tagged(value):
    """A JSON value of encode's input as the Python value fastavro takes."""
    import datetime
    import decimal

    if isinstance(value, list):
        return [from_tagged(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            (tag, v), = value.items()
            if tag == "$bytes":
                return bytes.fromhex(v)
            if tag == "$decimal":
                return decimal.Decimal(v)
            if tag == "$date":
                return datetime.date.fromisoformat(v)
            if tag == "$time_ms":
                return (datetime.datetime.min + datetime.timedelta(milliseconds=v)).time()
            if tag == "$timestamp_ms":
                return datetime.datetime.fromtimestamp(v / 1000, tz=datetime.timezone.utc)
        return {k: from_tagged(v) for k, v in value.items()}
    return value


def encode_stdin(url):
    import json

    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    client = SchemaRegistryClient({"url": url})
    serializers = {}
    for n, line in enumerate(sys.stdin, 1):
        line = line.strip()
        if not line:
            continue
        try:
            item = json.loads(line)
            schema = item["schema_text"] if "schema_text" in item else json.dumps(item["schema"])
            if schema not in serializers:
                serializers[schema] = AvroSerializer(client, schema, conf={"auto.register.schemas": True})
            field = MessageField.KEY if item.get("key") else MessageField.VALUE
            data = serializers[schema](from_tagged(item["value"]), SerializationContext(item["topic"], field))
        except Exception as e:
            sys.exit(f"registry-smoke: error: line {n}: {e}")
        print(data.hex(), flush=True)
    return 0


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else "smoke"
    if cmd not in ("smoke", "decode", "encode"):
        print(__doc__, file=sys.stderr)
        return 2
    ensure_venv()
    url = os.environ.get("SCHEMA_REGISTRY_URL") or DEFAULT_URL
    if cmd == "smoke":
        return smoke(url)
    return decode_stdin(url) if cmd == "decode" else encode_stdin(url)


if __name__ == "__main__":
    sys.exit(main())
