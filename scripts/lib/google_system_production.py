"""A pytest plugin of ours: runs Google's Bigtable system tests in their production mode
against sparsetable-server (scripts/suites/google_system.sh loads it with `-p` for its second
pass).

Why: Google's tests skip about forty tests whenever BIGTABLE_EMULATOR_HOST is set, whatever
the server behind it can do ("Emulator does not support this feature"), and that variable is
how a client is pointed at anything but Cloud Bigtable. Without it the tests take their
production path, which this plugin keeps, changing only where the clients' connections go
and who the caller is:

- Channels the clients open to Bigtable's endpoints (bigtable.googleapis.com,
  bigtableadmin.googleapis.com) become plaintext channels to the server in
  SPARSETABLE_HOST (host:port), through google.api_core's channel factories, which every
  generated client and transport calls. Other endpoints (Cloud Monitoring, which the data
  client exports metrics to) are left alone and fail to resolve, as they would offline.
- google.auth.default returns anonymous credentials and the project in GOOGLE_CLOUD_PROJECT:
  there is no Google account here, and the server authenticates nobody.
- test_utils.system.unique_resource_id (google-cloud-testutils), from which the tests'
  fixtures build instance and cluster ids, returns a short suffix (`-` + 4 letters + a
  counter). Its own suffix (milliseconds and a pid, about 20 characters) makes the fixtures'
  cluster ids (`g-c-p-d{suffix}-cluster`) longer than the 30 characters Cloud Bigtable allows,
  so Cloud Bigtable would refuse them as the server does.

Nothing in Google's test files is changed or copied; the plugin is imported before their
conftest files, so the id helper they import is already the short one.
"""

import itertools
import os
import random
import string

import grpc
import google.auth
from google.api_core import grpc_helpers, grpc_helpers_async
from google.auth.credentials import AnonymousCredentials
import test_utils.system

_HOST = os.environ["SPARSETABLE_HOST"]
_PROJECT = os.environ.get("GOOGLE_CLOUD_PROJECT", "sparsetable-system")


def _is_bigtable(target):
    return "bigtable" in str(target)


def _install():
    sync_factory = grpc_helpers.create_channel
    async_factory = grpc_helpers_async.create_channel

    def create_channel(target, *args, **kwargs):
        if not _is_bigtable(target):
            return sync_factory(target, *args, **kwargs)
        return grpc.insecure_channel(_HOST, options=kwargs.get("options"))

    def create_channel_async(target, *args, **kwargs):
        if not _is_bigtable(target):
            return async_factory(target, *args, **kwargs)
        return grpc.aio.insecure_channel(_HOST, options=kwargs.get("options"))

    grpc_helpers.create_channel = create_channel
    grpc_helpers_async.create_channel = create_channel_async
    google.auth.default = lambda *args, **kwargs: (AnonymousCredentials(), _PROJECT)

    counter = itertools.count()
    tag = "".join(random.choice(string.ascii_lowercase) for _ in range(4))

    def unique_resource_id(delimiter="_"):
        return f"{delimiter}{tag}{next(counter)}"

    test_utils.system.unique_resource_id = unique_resource_id


_install()
