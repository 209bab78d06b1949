"""Tournament pages (namespace "tournaments")."""

from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.tournament_create, name="create"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/settings/", views.tournament_settings, name="settings"),
    path("<int:pk>/participants/", views.participants_add, name="participants_add"),
    path("<int:pk>/participants/players/", views.participants_players, name="participants_players"),
    path("<int:pk>/participants/<int:pid>/toggle/", views.participant_toggle, name="participant_toggle"),
    path("<int:pk>/stages/new/", views.stage_create, name="stage_create"),
    path("<int:pk>/stages/<int:sid>/", views.stage_detail, name="stage"),
    path("<int:pk>/stages/<int:sid>/seating/", views.stage_seating, name="stage_seating"),
    path("<int:pk>/stages/<int:sid>/host/", views.stage_host, name="stage_host"),
    path("<int:pk>/stages/<int:sid>/rounds/new/", views.round_create, name="round_create"),
    path("<int:pk>/rounds/<int:rid>/", views.round_detail, name="round"),
    path("<int:pk>/rounds/<int:rid>/start/", views.round_start, name="round_start"),
    path("<int:pk>/tables/<int:tid>/host/", views.table_host, name="table_host"),
    path("<int:pk>/tables/<int:tid>/seat/", views.table_seat, name="table_seat"),
    path("<int:pk>/scoring/", views.scoring, name="scoring"),
    path("<int:pk>/standings/", views.standings_page, name="standings"),
    path("<int:pk>/standings/visibility/", views.standings_visibility, name="standings_visibility"),
    path("<int:pk>/standings.xlsx", views.standings_xlsx, name="standings_xlsx"),
    path("<int:pk>/players/<int:pid>/", views.player_page, name="player"),
    path("games/<int:game_id>/extra-points/", views.game_extra_points, name="game_extra_points"),
]
