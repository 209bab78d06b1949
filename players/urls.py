"""Public player pages (namespace "players")."""

from django.urls import path

from players import views

app_name = "players"

urlpatterns = [
    path("players/", views.player_list, name="list"),
    path("players/pending/", views.pending, name="pending"),
    path("players/pending/decide/", views.pending_decide, name="pending_decide"),
    path("players/pending/fold/", views.pending_fold, name="pending_fold"),
    path("players/discipline/", views.discipline_page, name="discipline"),
    path("players/discipline/<int:pk>/lift/", views.discipline_lift, name="discipline_lift"),
    path("players/<int:pk>/", views.player_detail, name="detail"),
    path("players/<int:pk>/rename/", views.player_rename, name="rename"),
    path("players/<int:pk>/merge/", views.player_merge, name="merge"),
    path("players/<int:pk>/vs/", views.head_to_head_pick, name="head_to_head_pick"),
    path("players/<int:pk>/vs/<int:other>/", views.head_to_head, name="head_to_head"),
    path("games/<int:game_id>/rated/", views.game_rated, name="game_rated"),
    path("ratings/", views.ratings, name="ratings"),
    path("ratings.xlsx", views.ratings_xlsx, name="ratings_xlsx"),
    path("ratings/how/", views.how_rating_works, name="how"),
    path("ratings/untrusted/", views.untrusted_rated, name="untrusted"),
]
