from django.urls import path

from games.console import views

app_name = "games"

urlpatterns = [
    path("", views.game_list, name="list"),
    path("new/", views.game_create, name="create"),
    path("<int:pk>/", views.game_console, name="console"),
    path("<int:pk>/console/", views.game_console_fragment, name="console_fragment"),
    path("<int:pk>/act/", views.game_act, name="act"),
    path("<int:pk>/undo/", views.game_undo, name="undo"),
    path("<int:pk>/clock/", views.game_clock, name="clock"),
    path("<int:pk>/tech-pause/end/", views.game_tech_pause_end, name="tech_pause_end"),
    path(
        "<int:pk>/overlay/settings/", views.game_overlay, name="overlay"
    ),  # /games/<id>/overlay/ is the public overlay (board_urls)
]
