from django.core.management.base import BaseCommand, CommandError

from cards.validation import find_problems


class Command(BaseCommand):
    help = "Check the whole catalogue against the content rules; exit status 1 if anything is wrong."

    def handle(self, *args, **options):
        problems = find_problems()
        for problem in problems:
            self.stdout.write(str(problem))
        if problems:
            raise CommandError(f"{len(problems)} problems in the catalogue.", returncode=1)
        self.stdout.write(self.style.SUCCESS("The catalogue obeys every content rule."))
