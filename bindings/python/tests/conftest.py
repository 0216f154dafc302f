"""Shared fixtures: a client on a manual clock with one table "t" (families "cf" and "cf2")."""

import pytest

import sparsetable as st

START_MICROS = 1_700_000_000_000_000


@pytest.fixture
def clock():
    return st.ManualClock(START_MICROS)


@pytest.fixture
def client(clock):
    return st.BigtableDataClient(clock=clock)


@pytest.fixture
def admin(client):
    return client.table_admin("inst")


@pytest.fixture
def table(client, admin):
    admin.create_table("t", {"cf": None, "cf2": None})
    return client.get_table("inst", "t")
