"""Bounded participants uploads and a paginated list (issue 22, finding 4).

The probe: a plain user's 755 KB file took 63–68 s, made 100,000 participants
in one transaction (another host's click failed «database is locked» after
20 s) and a 44 MB tournament page. Now a list is parsed before any write and
refused whole beyond 1,000 participants per tournament (files beyond 1 MB
before parsing), the rows go in with one INSERT, and the page shows 100 at a time.
"""

from __future__ import annotations

import io
import time

from openpyxl import Workbook

from tournaments import services
from tournaments.models import Participant, Tournament

HX = {"HTTP_HX_REQUEST": "true"}


def _tournament(host) -> Tournament:
    return services.tournament_create(name="Большой", organizer=host)


def _csv(n: int, name: str = "list.csv") -> io.BytesIO:
    buf = io.BytesIO("".join(f"Pl{i}\n" for i in range(n)).encode())
    buf.name = name
    return buf


def test_the_probes_big_file_is_refused_in_under_a_second_and_writes_nothing(client, host):
    t = _tournament(host)
    client.force_login(host)
    big = _csv(100_000)
    assert 700_000 < len(big.getvalue()) < 1024 * 1024  # the probe's 755 KB, under the size bound
    client.get(f"/tournaments/{t.pk}/")  # templates compiled, modules imported: time the refusal only
    started = time.perf_counter()
    r = client.post(f"/tournaments/{t.pk}/participants/", {"file": big}, **HX)
    elapsed = time.perf_counter() - started
    assert r.status_code == 422 and "не больше 1000 участников" in r.content.decode()
    assert elapsed < 1.0, elapsed
    assert not Participant.objects.exists()


def test_a_file_over_one_megabyte_is_refused_before_parsing(client, host):
    t = _tournament(host)
    client.force_login(host)
    buf = io.BytesIO(b"x" * (1024 * 1024 + 1))
    buf.name = "huge.csv"
    r = client.post(f"/tournaments/{t.pk}/participants/", {"file": buf}, **HX)
    assert r.status_code == 422 and "Файл больше 1 МБ" in r.content.decode()
    assert not Participant.objects.exists()


def test_an_xlsx_with_too_many_rows_is_refused_while_streaming(client, host):
    t = _tournament(host)
    wb = Workbook()
    for i in range(5000):
        wb.active.append([f"Игрок{i}"])
    buf = io.BytesIO()
    wb.save(buf)
    buf.seek(0)
    buf.name = "many.xlsx"
    client.force_login(host)
    r = client.post(f"/tournaments/{t.pk}/participants/", {"file": buf}, **HX)
    assert r.status_code == 422 and "не больше 1000 участников" in r.content.decode()
    assert not Participant.objects.exists()


def test_a_thousand_fit_in_one_insert_and_one_more_is_refused_whole(client, host, django_assert_max_num_queries):
    t = _tournament(host)
    entries = [(f"Игрок{i}", "") for i in range(999)]
    with django_assert_max_num_queries(6):  # existing names, one INSERT, the savepoint
        result = services.participants_add(tournament=t, entries=entries)
    assert len(result.created) == 999 and all(p.pk for p in result.created)
    client.force_login(host)
    r = client.post(f"/tournaments/{t.pk}/participants/", {"text": "Ещё один\nИ ещё"}, **HX)
    assert r.status_code == 422 and Participant.objects.count() == 999
    r = client.post(f"/tournaments/{t.pk}/participants/", {"text": "Ещё один"}, **HX)
    assert r.status_code == 200 and Participant.objects.count() == 1000


def test_the_tournament_page_shows_a_hundred_participants_a_page(client, host):
    t = _tournament(host)
    services.participants_add(tournament=t, entries=[f"Игрок{i:04d}" for i in range(1000)])
    client.force_login(host)
    page1 = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "Игрок0000</a>" in page1 and "Игрок0099</a>" in page1 and "Игрок0100</a>" not in page1
    assert "Страница 1 из 10" in page1 and "participants_page=2" in page1
    page3 = client.get(f"/tournaments/{t.pk}/?participants_page=3").content.decode()
    assert "Игрок0200</a>" in page3 and "Игрок0099</a>" not in page3
    assert len(page1) < 300_000  # the unlinked ones are also asked about 100 at a time
