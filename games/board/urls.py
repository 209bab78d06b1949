from django.urls import URLPattern, path

from games.board import views as board_views

app_name = "board"

urlpatterns: list[URLPattern] = [
    path("<int:game_id>/board/", board_views.board_page, name="board"),
    path("<int:game_id>/board/state/", board_views.board_snapshot, name="snapshot"),
    path("<int:game_id>/overlay/", board_views.overlay_page, name="overlay"),
    path("<int:game_id>/overlay/state/", board_views.overlay_snapshot, name="overlay-snapshot"),
    # The same overlay with the token in the path (reverse("board:overlay", args=[pk, token])).
    path("<int:game_id>/overlay/<str:token>/", board_views.overlay_page, name="overlay"),
]
