#!/usr/bin/python3
"""A fake DSE module for the genset tests, on pymodbus's own server (Debian's python3-pymodbus).

It answers function 3 reads and function 16 writes of holding registers, addressed as GenComm numbers
them (zero-based PDU addresses: 768 is page 3 offset 0). What it serves comes from a JSON state file
that the test rewrites (renamed into place, so never read half-written), read on every request:

    {"unit": 10,                     the unit id it answers (others get no answer at all)
     "registers": {"768": 1, ...},   register -> value; registers not listed read 0
     "missing": [1408],              registers answered with exception 2, illegal data address
     "fault": null | "exception" | "slow" | "silent" | "wrong_unit" | "garbage",
     "delay": 2.0}                   seconds, for "slow"

Every write is appended as one JSON line {"address": a, "values": [...]} to the writes file.
Prints "READY <port>" (TCP) or "READY" (RTU) once it serves.
"""

import argparse
import asyncio
import json
import os
import struct
import sys
import threading
import time

from pymodbus.datastore import ModbusServerContext, ModbusSlaveContext
from pymodbus.exceptions import NoSuchSlaveException
from pymodbus.framer.rtu_framer import ModbusRtuFramer
from pymodbus.server.async_io import ModbusSerialServer, ModbusTcpServer


class Control:
    """The state file, read on every request: two writes within one timestamp tick must both count."""

    def __init__(self, path):
        self.path = path
        self.state = {}

    def current(self):
        try:
            with open(self.path, encoding="utf8") as f:
                self.state = json.load(f)
        except FileNotFoundError:
            pass
        return self.state


class DseBlock:
    """The holding registers of the fake module, with the faults the state file asks for."""

    def __init__(self, control, writes_path):
        self.control = control
        self.writes_path = writes_path

    def _gate(self, address, count):
        state = self.control.current()
        fault = state.get("fault")
        if fault == "silent":
            raise NoSuchSlaveException("silent")
        if fault == "slow":
            # Blocking on purpose: a module that takes this long to answer holds the line.
            time.sleep(float(state.get("delay", 2.0)))
        if fault == "exception":
            raise RuntimeError("slave device failure")
        missing = set(int(a) for a in state.get("missing", []))
        return not any(a in missing for a in range(address, address + count))

    def validate(self, address, count=1):
        return self._gate(address, count)

    def getValues(self, address, count=1):  # pylint: disable=invalid-name
        regs = self.control.current().get("registers", {})
        return [int(regs.get(str(a), 0)) & 0xFFFF for a in range(address, address + count)]

    def setValues(self, address, values):  # pylint: disable=invalid-name
        with open(self.writes_path, "a", encoding="utf8") as f:
            f.write(json.dumps({"address": address, "values": list(values)}) + "\n")

    def reset(self):
        pass


def manipulator(control, unit, serial):
    """Replies the state file spoils: another unit id, or a frame of the right length that is garbage."""

    def manipulate(response):
        fault = control.current().get("fault")
        if fault == "wrong_unit":
            response.unit_id = (unit % 247) + 1
        if fault == "garbage":
            data = response.encode()
            if serial:
                # Unit, function and data as asked, then a CRC that cannot match.
                crc = 0 if data[-1:] != b"\x00" else 1
                return struct.pack(">BB", response.unit_id, response.function_code) + data + bytes([crc, crc]), True
            # A whole MBAP frame whose function code is one nobody asked for.
            header = struct.pack(">HHHB", response.transaction_id, 0, len(data) + 2, response.unit_id)
            return header + bytes([0x7F]) + data, True
        return response, False

    return manipulate


def exit_with_parent():
    """The test holds our stdin open: when it goes away, however it ended, so does the module."""
    sys.stdin.read()
    os._exit(0)


async def main():
    threading.Thread(target=exit_with_parent, daemon=True).start()
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", required=True)
    parser.add_argument("--writes", required=True)
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--serial", help="serve Modbus RTU on this device instead of TCP")
    parser.add_argument("--baud", type=int, default=19200)
    args = parser.parse_args()

    control = Control(args.state)
    unit = int(control.current().get("unit", 1))
    block = DseBlock(control, args.writes)
    slave = ModbusSlaveContext(hr=block, zero_mode=True)
    context = ModbusServerContext(slaves={unit: slave}, single=False)
    common = {
        "ignore_missing_slaves": True,
        "response_manipulator": manipulator(control, unit, bool(args.serial)),
    }

    if args.serial:
        server = ModbusSerialServer(
            context, framer=ModbusRtuFramer, port=args.serial, baudrate=args.baud, **common
        )
        await server.start()
        print("READY", flush=True)
        await asyncio.Event().wait()
    else:
        # Reuse: the module comes back on the same port while the old connections are in TIME_WAIT.
        server = ModbusTcpServer(
            context, address=("127.0.0.1", args.port), allow_reuse_address=True, **common
        )
        task = asyncio.create_task(server.serve_forever())
        await asyncio.wait([task, server.serving], return_when=asyncio.FIRST_COMPLETED)
        if not server.serving.done():
            sys.exit(f"could not listen on 127.0.0.1:{args.port}")
        port = server.server.sockets[0].getsockname()[1]
        print(f"READY {port}", flush=True)
        await task


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
