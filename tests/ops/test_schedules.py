import pytest
from django_q.models import Schedule

from ops.schedules import SCHEDULES, ensure_schedules

pytestmark = pytest.mark.django_db


def test_ensure_schedules_creates_each_recurring_job_once():
    ensure_schedules()
    ensure_schedules()
    assert Schedule.objects.count() == len(SCHEDULES)
    beat = Schedule.objects.get(name="worker heartbeat")
    assert beat.func == "ops.tasks.heartbeat"
    assert beat.minutes == 1
    assert beat.repeats == -1


def test_ensure_schedules_repairs_an_edited_schedule():
    ensure_schedules()
    Schedule.objects.filter(name="worker heartbeat").update(minutes=5, func="wrong.func")
    ensure_schedules()
    beat = Schedule.objects.get(name="worker heartbeat")
    assert (beat.minutes, beat.func) == (1, "ops.tasks.heartbeat")


def test_every_scheduled_function_is_importable():
    from django.utils.module_loading import import_string

    for item in SCHEDULES:
        assert callable(import_string(item.func)), item.func
