"""Replay protection across OS processes: two processes, each with its own Context
on the same SQLite file, race to use the same code (and the same pending
credential); exactly one may win each round."""

import multiprocessing

import pytest

import libmfa
from conftest import ENGINE_KEY, ENGINE_T0, EngineKit

GEN = libmfa.TOTPMultiFactorGenerator
ROUNDS = 50


def racer(store, commands, results, barrier):
    """A worker process: its own Context on ``store``; one resolve attempt per command."""
    import libmfa as mfa  # a fresh interpreter (spawn)

    now = [0]
    with mfa.Context(store, master_key=ENGINE_KEY, clock=lambda: now[0]) as ctx:
        while True:
            command = commands.get()
            if command is None:
                return
            now[0], pending, enrollment_id, code = command
            try:
                resolver = ctx.resolver(pending)
                assertion = mfa.TOTPMultiFactorGenerator.assertion_for_sign_in(enrollment_id, code)
                outcome = None
            except mfa.MFAError as error:  # reported, not raced
                outcome = ("setup", error.name)
            barrier.wait(timeout=60)
            if outcome is None:
                try:
                    resolver.resolve_sign_in(assertion)
                    outcome = ("won", "OK")
                except mfa.MFAError as error:
                    outcome = ("lost", error.name)
                except Exception as error:  # noqa: BLE001 - reported to the parent
                    outcome = ("crashed", repr(error))
            results.put(outcome)


def test_two_processes_race_for_one_code(tmp_path):
    store = str(tmp_path / "race.sqlite3")
    kit = EngineKit(store)
    user = kit.user()
    info, totp = kit.enroll(user)

    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(2)
    results = spawn.Queue()
    queues = [spawn.Queue(), spawn.Queue()]
    workers = [spawn.Process(target=racer, args=(store, queue, results, barrier), daemon=True) for queue in queues]
    for worker in workers:
        worker.start()
    try:
        tally = []
        for round_ in range(ROUNDS):
            kit.clock.now = ENGINE_T0 + 30 * (round_ + 1)  # a new time step each round
            code = kit.code(totp)
            same_credential = round_ % 2 == 0
            pendings = [kit.resolver(user).session]
            pendings.append(pendings[0] if same_credential else kit.resolver(user).session)
            for queue, pending in zip(queues, pendings):
                queue.put((kit.clock.now, pending, info.uid, code))
            outcomes = sorted([results.get(timeout=60), results.get(timeout=60)])
            tally.append((round_, same_credential, outcomes))
        for round_, same_credential, outcomes in tally:
            kinds = [kind for kind, _ in outcomes]
            assert kinds == ["lost", "won"], (round_, outcomes)
            loser = outcomes[0][1]
            if same_credential:
                assert loser in ("INVALID_SESSION", "INVALID_VERIFICATION_CODE"), (round_, outcomes)
            else:
                assert loser == "INVALID_VERIFICATION_CODE", (round_, outcomes)
    finally:
        for queue in queues:
            queue.put(None)
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
        kit.ctx.close()
    assert all(worker.exitcode == 0 for worker in workers)
    # Every round's code is used up for good: the parent cannot replay any of them.
    kit.clock.now = ENGINE_T0 + 30 * ROUNDS
    again = EngineKit(store, config=None, clock=kit.clock)
    try:
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            again.resolve(again.resolver(user), info.uid, again.code(totp))
    finally:
        again.ctx.close()
